package store

import (
	"os"
	"path/filepath"
	"strings"
)

// logHeaderSize is the header Badger writes at the start of every
// memtable (.mem) and value log (.vlog) file: key id and IV.
const logHeaderSize = 20

// tornLogs lists the Badger log files in dir that are shorter than their
// header. Badger creates a log with open(O_CREATE) and only then sizes it,
// so a writer killed between the two leaves an empty file, and Badger
// refuses to open a database holding one, read-only or not ("Create a
// new file"; an under-sized one trips an assertion that exits the
// process). Such a file holds no entry, so nothing refers to it.
func tornLogs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var torn []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".mem") && !strings.HasSuffix(name, ".vlog") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.Size() < logHeaderSize {
			torn = append(torn, filepath.Join(dir, name))
		}
	}
	return torn
}

// sweepTornLogs removes torn log files (see tornLogs), but only while it
// holds the database's exclusive lock: a live writer may have created one
// a moment ago and be about to size it. If the lock is busy the writer
// owns the files and nothing is removed.
func sweepTornLogs(dir string) {
	if len(tornLogs(dir)) == 0 {
		return
	}
	unlock, ok := lockExclusive(dir)
	if !ok {
		return
	}
	defer unlock()
	removed := false
	for _, name := range tornLogs(dir) { // again, under the lock
		if os.Remove(name) == nil {
			removed = true
		}
	}
	if removed {
		syncDir(dir)
	}
}

// syncDir makes removals in dir durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
