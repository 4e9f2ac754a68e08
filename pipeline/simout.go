package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/trace"
)

// simStage is where one invocation of fencelab sim saves its designs'
// folders, so that --out never mixes invocations: a reader sees a
// design's folder from the last invocation that wrote it, whole
// (atomicfile.Stage), and a design with no failing run has no folder.
type simStage struct {
	out  string
	disk *atomicfile.Disk
	// outFolder is --out: removed again at the end if this invocation
	// created it and left nothing in it.
	outFolder *atomicfile.Folder
	stages    map[string]*atomicfile.Stage
}

// simOwner is fencelab sim as the writer of a design's folder: a folder
// that holds anything else is a user's, never replaced.
func simOwner() *atomicfile.Owner {
	return &atomicfile.Owner{Name: "fencelab sim", Files: append(trace.FileNames(), "run.txt", "schedule.json", "porcupine.html", "shrunk-schedule.json")}
}

// newSimStage creates --out, whose design folders it replaces.
func newSimStage(disk *atomicfile.Disk, out string) (*simStage, error) {
	outFolder := disk.Folder(out)
	if err := outFolder.Create(); err != nil {
		return nil, CouldNotSave(err)
	}
	return &simStage{out: out, disk: disk, outFolder: outFolder, stages: map[string]*atomicfile.Stage{}}, nil
}

// dir is the staged folder of a design's files.
func (s *simStage) dir(name string) (*atomicfile.Folder, error) {
	if s.stages[name] == nil {
		st, err := s.disk.Stage(filepath.Join(s.out, name))
		if err != nil {
			return nil, CouldNotSave(fmt.Errorf("could not save into %s: %w", s.out, err))
		}
		s.stages[name] = st
	}
	return s.stages[name].Folder(), nil
}

// commit puts the staged folder of each of names into --out, replacing the
// one there, and removes the folder of each name that has none staged
// (left by an earlier invocation). Only folders named by names are
// touched, and only if they hold nothing but files fencelab sim writes.
func (s *simStage) commit(names []string) error {
	owner := simOwner()
	for _, name := range names {
		var err error
		if st := s.stages[name]; st != nil {
			err = st.Commit(owner)
		} else {
			err = owner.RemoveOwn(filepath.Join(s.out, name))
		}
		if err != nil {
			return CouldNotSave(fmt.Errorf("could not save into %s: %w", s.out, err))
		}
	}
	s.abandon()
	return nil
}

// abandon removes the staged folders not committed, and --out if this
// invocation created it and it is empty.
func (s *simStage) abandon() {
	for _, st := range s.stages {
		st.Abandon()
	}
	s.outFolder.Abandon()
}
