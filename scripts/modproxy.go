//go:build ignore

// modproxy packs every module of this repository at one version into a
// directory laid out as a module proxy (GOPROXY=file://DIR): for each
// module, @v/VERSION.mod, .info and .zip, and @v/list. The zips are made
// with golang.org/x/mod/zip, as the go command expects them: each file under
// module@version/, without nested modules, vendor directories or files git
// ignores. scripts/release-check builds and runs it; it is not part of any
// module (the build tag keeps golang.org/x/mod out of the root's go.mod).
//
// Usage: go run modproxy.go -repo DIR -version vX.Y.Z -out DIR
//
// It prints the path and directory of each module it packed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the repository's top directory")
	version := flag.String("version", "", "the version to pack every module at, such as v0.2.0")
	out := flag.String("out", "", "the proxy directory to write")
	flag.Parse()
	if *version == "" || *out == "" {
		log.Fatal("modproxy: -version and -out are required")
	}
	files, err := gitFiles(*repo)
	if err != nil {
		log.Fatal(err)
	}
	dirs := moduleDirs(files)
	if len(dirs) == 0 {
		log.Fatal("modproxy: no go.mod found")
	}
	for _, dir := range dirs {
		modPath, err := pack(*repo, dir, files, *version, *out)
		if err != nil {
			log.Fatalf("modproxy: %s: %v", dir, err)
		}
		fmt.Printf("%s %s\n", modPath, dir)
	}
}

// gitFiles lists the files of the work tree that git tracks or would track
// (untracked but not ignored), relative to repo, with forward slashes.
func gitFiles(repo string) ([]string, error) {
	cmd := exec.Command("git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(string(b), "\x00") {
		if f == "" {
			continue
		}
		// A tracked file deleted in the work tree is not part of it.
		if _, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(f))); err == nil {
			files = append(files, f)
		}
	}
	return files, nil
}

// moduleDirs returns the directories that hold a go.mod ("." for the top),
// leaving out testdata and directories the go command ignores.
func moduleDirs(files []string) []string {
	var dirs []string
	for _, f := range files {
		if path.Base(f) != "go.mod" {
			continue
		}
		dir := path.Dir(f)
		if ignoredDir(dir) {
			continue
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

func ignoredDir(dir string) bool {
	for _, el := range strings.Split(dir, "/") {
		if el == "testdata" || el == "vendor" || (el != "." && (strings.HasPrefix(el, ".") || strings.HasPrefix(el, "_"))) {
			return true
		}
	}
	return false
}

// pack writes the .mod, .info and .zip of the module in dir at version into
// the proxy directory out, adds version to its list, and returns the
// module's path.
func pack(repo, dir string, files []string, version, out string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(repo, dir, "go.mod"))
	if err != nil {
		return "", err
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		return "", fmt.Errorf("go.mod has no module line")
	}
	mv := module.Version{Path: modPath, Version: version}
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return "", err
	}
	escPath, err := module.EscapePath(modPath)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return "", err
	}
	escVer, err := module.EscapeVersion(version)
	if err != nil {
		return "", err
	}
	base := filepath.Join(vdir, escVer)
	if err := writeMeta(base, gomod, version); err != nil {
		return "", err
	}
	if err := writeZip(base+".zip", mv, repo, dir, files); err != nil {
		return "", err
	}
	return modPath, os.WriteFile(filepath.Join(vdir, "list"), []byte(version+"\n"), 0o644)
}

// writeMeta writes base.mod, the module's go.mod, and base.info, its
// version and time.
func writeMeta(base string, gomod []byte, version string) error {
	if err := os.WriteFile(base+".mod", gomod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	return os.WriteFile(base+".info", info, 0o644)
}

// writeZip writes the module zip of the files under dir. modzip.Create
// leaves out nested modules and vendor directories, and refuses what the
// go command would refuse to extract.
func writeZip(name string, mv module.Version, repo, dir string, files []string) error {
	var zfiles []modzip.File
	for _, f := range files {
		rel := f
		if dir != "." {
			if !strings.HasPrefix(f, dir+"/") {
				continue
			}
			rel = strings.TrimPrefix(f, dir+"/")
		}
		zfiles = append(zfiles, repoFile{rel: rel, abs: filepath.Join(repo, filepath.FromSlash(f))})
	}
	w, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := modzip.Create(w, mv, zfiles); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// repoFile is a work-tree file, as modzip.Create reads it.
type repoFile struct{ rel, abs string }

func (f repoFile) Path() string                 { return f.rel }
func (f repoFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.abs) }
func (f repoFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }
