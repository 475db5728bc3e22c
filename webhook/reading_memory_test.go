package webhook_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/webhook"
)

// slowSenders has n senders post a body of size bytes each to url at once:
// all but its last byte at once, then, after hold, the last byte. It
// returns how many answers had each status.
func slowSenders(t *testing.T, url string, n, size int, hold time.Duration, header http.Header) map[int]int {
	t.Helper()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	pad := `{"pad":"` + strings.Repeat("x", size-11) // shared: the senders cost no memory of their own
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, pw := io.Pipe()
			go func() {
				_, _ = io.WriteString(pw, pad)
				time.Sleep(hold)
				_, _ = io.WriteString(pw, `"}`+"\n")
				pw.Close()
			}()
			req, _ := http.NewRequest(http.MethodPost, url, pr)
			req.ContentLength = int64(size)
			for k, v := range header {
				req.Header[k] = v
			}
			code := 0
			if resp, err := http.DefaultClient.Do(req); err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes
}

// TestHandlerMemoryUnderSlowSenders is the attack whose memory
// BENCHMARKS.md quotes, with EDAPP_MEMORY_ATTACK=sc (200 senders without
// the secret against safetyculture.NewWebhookHandler) or =edapp (300 slow
// senders that know the secret against a Handler with WithSecretHeader).
// The handler runs in a child process of its own, whose peak RSS
// (VmHWM, Linux) the test prints.
func TestHandlerMemoryUnderSlowSenders(t *testing.T) {
	attack := os.Getenv("EDAPP_MEMORY_ATTACK")
	if attack != "sc" && attack != "edapp" {
		t.Skip("EDAPP_MEMORY_ATTACK=sc or edapp runs it")
	}
	if os.Getenv("EDAPP_MEMORY_ATTACK_SERVE") != "" {
		serveAttacked(t, attack)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHandlerMemoryUnderSlowSenders$")
	cmd.Env = append(os.Environ(), "EDAPP_MEMORY_ATTACK_SERVE=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	header, n := http.Header{}, 200
	if attack == "sc" {
		header.Set(safetyculture.SignatureHeader, "bad")
	} else {
		header.Set("X-Hook-Secret", "s3cret")
		n = 300
	}
	codes := slowSenders(t, "http://"+strings.TrimSpace(line), n, 1<<20-1, 2*time.Second, header)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Printf("%s: answers %v, handler's peak RSS %s\n", attack, codes, strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")))
		}
	}
}

// serveAttacked serves the attacked handler on loopback, prints its
// address, and serves until stdin closes.
func serveAttacked(t *testing.T, attack string) {
	var h http.Handler
	var err error
	if attack == "sc" {
		h, err = safetyculture.NewWebhookHandler("secret", func(context.Context, *safetyculture.WebhookEvent) error { return nil })
	} else {
		h, err = webhook.NewHandler(func(context.Context, edapp.Event) error { return nil }, webhook.WithSecretHeader("X-Hook-Secret", "s3cret"))
	}
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = http.Serve(l, h) }()
	fmt.Println(l.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
}
