package filedest

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/edapp-go/edapp/export"
)

// stateFile is the export's state, in the output directory.
const stateFile = ".edapp-export.json"

// exportState is what an export remembers between runs.
type exportState struct {
	Version int                   `json:"version"`
	Format  string                `json:"format"`
	Kinds   map[string]*kindState `json:"kinds"`
	// Budget is what the runs into this directory spent of the request
	// budget lately: the start times of their requests in the window
	// current when they were saved (see Options.Budget).
	Budget []time.Time `json:"budget,omitempty"`
}

// kindState is one kind's state.
type kindState struct {
	// Cursor is set on incremental kinds once a run has fetched them to
	// the end; the next run fetches from Cursor minus the overlap.
	Cursor *time.Time `json:"cursor,omitempty"`
	// Parts are the files of an incremental kind, in order. A run adds
	// parts as it goes, even before it reaches the end.
	Parts []partInfo `json:"parts,omitempty"`
	// Records counts the records in the kind's files.
	Records int `json:"records"`
	// Updated is when the kind's files last changed.
	Updated time.Time `json:"updated"`
	// Mirrored is when a Remirror kind was last fetched in full.
	Mirrored *time.Time `json:"mirrored,omitempty"`
}

// partInfo is one file of an incremental kind.
type partInfo struct {
	File    string `json:"file"` // relative to the output directory
	Keys    string `json:"keys"` // the digests of its records' keys, one per line
	Records int    `json:"records"`
	// MaxTime is the latest date of its records (or, for a kind whose
	// records show no date, when the run that wrote it started). A run
	// fetching from a later time cannot meet its records again.
	MaxTime time.Time `json:"maxTime"`
	// Undated says some of its records have no date; its keys are always
	// loaded.
	Undated bool `json:"undated,omitempty"`
	// KeysSHA256 is the checksum of the keys file, which holds Records
	// keys.
	KeysSHA256 string `json:"keysSha256,omitempty"`
}

func loadState(dir string) (*exportState, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &exportState{Version: 1, Kinds: map[string]*kindState{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseState(b)
}

// parseState reads a state file's contents, and refuses a state whose
// paths lead outside the parts of its kinds.
func parseState(b []byte) (*exportState, error) {
	var st exportState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it, or use --full, to start over)", stateFile, err)
	}
	if st.Version != 1 {
		return nil, fmt.Errorf("%s: unknown version %d", stateFile, st.Version)
	}
	if st.Kinds == nil {
		st.Kinds = map[string]*kindState{}
	}
	for name, ks := range st.Kinds {
		if ks == nil { // "kind": null holds nothing
			delete(st.Kinds, name)
		}
	}
	if err := st.checkPaths(); err != nil {
		return nil, err
	}
	return &st, nil
}

func (st *exportState) kind(name string) *kindState {
	ks := st.Kinds[name]
	if ks == nil {
		ks = &kindState{}
		st.Kinds[name] = ks
	}
	return ks
}

func (st *exportState) save(dir string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	f, err := createAtomic(filepath.Join(dir, stateFile))
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.abort()
		return err
	}
	return f.commit()
}

// atomicFile is written under a temporary name and renamed into place on
// commit, so that the final name always holds a whole file.
type atomicFile struct {
	*bufio.Writer
	f     *os.File
	final string
}

// tempPrefix and tempSuffix mark the temporary files of an export; a run
// removes those a crashed run left behind.
const (
	tempPrefix = "."
	tempSuffix = ".tmp"
)

// createAtomic starts the file that commit renames to path. It is made
// 0600 (os.CreateTemp's mode): the export's files hold account data; the
// file it replaces, if any, keeps its mode, which an operator may have
// chosen.
func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix+filepath.Base(path)+".*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return &atomicFile{Writer: bufio.NewWriterSize(f, 256<<10), f: f, final: path}, nil
}

// commit flushes the file to disk, renames it into place and syncs the
// directory, so that the rename survives a crash.
func (a *atomicFile) commit() error {
	err := a.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.final)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return err
	}
	syncDir(filepath.Dir(a.final))
	return nil
}

func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

// syncDir makes a rename in dir durable, where the system supports it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// writeKeys writes the digests of a part's keys, and returns the SHA-256
// of the file, which the state keeps.
func writeKeys(path string, keys []recordKey) (string, error) {
	f, err := createAtomic(path)
	if err != nil {
		return "", err
	}
	sum := sha256.New()
	buf := make([]byte, 2*len(recordKey{})+1)
	for _, k := range keys {
		hex.Encode(buf, k[:])
		buf[len(buf)-1] = '\n'
		sum.Write(buf)
		if _, err := f.Write(buf); err != nil {
			f.abort()
			return "", err
		}
	}
	return hex.EncodeToString(sum.Sum(nil)), f.commit()
}

// readKeys adds the digests of part's keys file to seen, after checking
// that the file is the one the state recorded: as many keys as the part
// has records, and the same checksum. A keys file cut short would
// otherwise let records be written twice.
func readKeys(dir string, part partInfo, seen map[recordKey]struct{}) error {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(part.Keys)))
	if err != nil {
		return err
	}
	lines := strings.Count(string(b), "\n")
	sum := sha256.Sum256(b)
	if lines != part.Records || (part.KeysSHA256 != "" && hex.EncodeToString(sum[:]) != part.KeysSHA256) {
		return fmt.Errorf("%w: %s holds %d keys, the state says %d of checksum %.12s: export the kind again with --full --kinds %s",
			ErrState, part.Keys, lines, part.Records, part.KeysSHA256, path.Dir(part.File))
	}
	for line := range strings.Lines(string(b)) {
		var k recordKey
		if n, err := hex.Decode(k[:], []byte(strings.TrimSpace(line))); err != nil || n != len(k) {
			return fmt.Errorf("%w: %s: a line is not a key", ErrState, part.Keys)
		}
		seen[k] = struct{}{}
	}
	return nil
}

// ErrState is wrapped by the errors about a state file, or a file it
// names, that is not as the export left it.
var ErrState = errors.New("export: the export directory's state does not match its files")

// checkPaths refuses a state whose parts are not where the export puts
// them: DIR/<kind>/part-NNNNNN.<ext> and DIR/<kind>/.part-NNNNNN.keys.
func (st *exportState) checkPaths() error {
	for name, ks := range st.Kinds {
		for _, p := range ks.Parts {
			for _, rel := range []string{p.File, p.Keys} {
				if !filepath.IsLocal(rel) || path.Dir(rel) != name || !partFile.MatchString(path.Base(rel)) {
					return fmt.Errorf("%w: %s names %q, not a part of %s", ErrState, stateFile, rel, name)
				}
			}
		}
	}
	return nil
}

// cleanDir removes the temporary files of the state that an interrupted
// run left in dir; each kind's leftovers go when it begins (cleanKind).
// Files that are not the export's are left alone.
func cleanDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if m := tempFile.FindStringSubmatch(e.Name()); !e.IsDir() && m != nil && m[1] == stateFile {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// cleanKind removes what an interrupted run left in dir of kind k: the
// temporary files of its file, and for an incremental kind those of its
// parts, and the parts not among recorded (written, but never recorded).
// The kind's own files are known by its name, whatever its source:
// filedest lists no source's kinds. Files that are not the export's are
// left alone.
func cleanKind(dir string, k *export.Kind, recorded []partInfo) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		m := tempFile.FindStringSubmatch(e.Name())
		if !e.IsDir() && m != nil && (m[1] == k.Name+".csv" || m[1] == k.Name+".jsonl") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if !k.Incremental {
		return nil
	}
	return cleanParts(dir, k, recorded)
}

// cleanParts removes from an incremental kind's directory the parts and
// temporary files the state does not record: what a run that stopped
// before saving it left.
func cleanParts(dir string, k *export.Kind, recorded []partInfo) error {
	known := map[string]bool{}
	for _, p := range recorded {
		known[filepath.FromSlash(p.File)] = true
		known[filepath.FromSlash(p.Keys)] = true
	}
	sub, err := os.ReadDir(filepath.Join(dir, k.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range sub {
		rel := filepath.Join(k.Name, e.Name())
		if e.IsDir() || known[rel] {
			continue
		}
		if isTemp(e.Name()) || partFile.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, rel)); err != nil {
				return err
			}
		}
	}
	return nil
}

// isTemp matches the temporary files createAtomic makes for a part or
// its keys: ".<name>.<digits>.tmp".
func isTemp(name string) bool {
	m := tempFile.FindStringSubmatch(name)
	return m != nil && partFile.MatchString(m[1])
}

// partName is the file name of part n of an incremental kind; keysName is
// that of its keys.
func partName(n int, format string) string { return fmt.Sprintf("part-%06d.%s", n, format) }
func keysName(n int) string                { return fmt.Sprintf(".part-%06d.keys", n) }

// tempFile matches a temporary file of createAtomic; its group is the
// final name.
var tempFile = regexp.MustCompile(`^\.(.+)\.\d+\.tmp$`)

// partFile matches the names of parts and their keys, in either format.
var partFile = regexp.MustCompile(`^(part-\d{6}\.(csv|jsonl)|\.part-\d{6}\.keys)$`)
