package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic writes data to path through a temporary file in the
// same directory, synced and then renamed over path, so a full disk, an
// error or a kill never leaves a truncated file under path: path holds
// either its old content or all of data. The temporary file is removed on
// any error.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := stageFile(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w (nothing was written under that name)", path, err)
	}
	return nil
}

// stageFile writes data to a new temporary file next to path, synced,
// and returns its name: the first half of writeFileAtomic, which a caller
// writing several files completes with one rename each once every file is
// staged. On an error it removes the temporary file.
func stageFile(path string, data []byte, perm fs.FileMode) (name string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".kvcheck-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w (nothing was written under that name)", path, err)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Chmod(perm); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// markerBytes is how much of an existing output file refuseForeignFile
// reads: the markers kvcheck writes sit in a page's first lines.
const markerBytes = 4096

// refuseForeignFile returns an error when path exists and is not a
// regular file kvcheck wrote (one carrying marker in its first
// markerBytes): a file someone else wrote, a device or a directory is
// never overwritten, and only a bounded prefix of the file is read.
func refuseForeignFile(path, marker string) error {
	return refuseForeign(path, func(head []byte) bool { return bytes.Contains(head, []byte(marker)) })
}

// refuseForeign is refuseForeignFile with ours telling, from the first
// markerBytes of a file, whether kvcheck wrote it.
func refuseForeign(path string, ours func(head []byte) bool) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return checkWritableDir(filepath.Dir(path))
	}
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; kvcheck writes its output to a new or regular file (through a temporary file and a rename), so choose a file path", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, markerBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if !ours(head[:n]) {
		return fmt.Errorf("%s exists and was not written by kvcheck; choose another output file or remove it", path)
	}
	return checkWritableDir(filepath.Dir(path))
}

// checkWritableDir reports whether files can be created in dir, or, when
// dir does not exist yet, in the nearest directory above it that does
// (where it would be created): --out and --html are checked before the
// search, not after it.
func checkWritableDir(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) && filepath.Dir(d) != d {
			continue
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
		probe, err := os.CreateTemp(d, ".kvcheck-probe-*")
		if err != nil {
			return fmt.Errorf("cannot write in %s: %w", d, err)
		}
		probe.Close()
		os.Remove(probe.Name())
		return nil
	}
}
