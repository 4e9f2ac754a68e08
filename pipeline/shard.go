package pipeline

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/fencelab/fencelab/internal/atomicfile"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/shard"
)

// Sharding, in one place for every command that splits a campaign: a
// shard runs its items and saves a result folder (shard.json and the
// files of its failing runs, staged and renamed into --out whole), and
// fencelab merge reads the folders, checks they are one campaign's, every
// shard once (shard.Check), and lets the command finish the campaign from
// the merged results, with the same code and output as one machine.

// ShardRun is a shard's part of a campaign: which shard, and the identity
// its result folder carries.
type ShardRun struct {
	Spec     shard.Spec
	Identity shard.Identity
}

// shardOwner is a command as the writer of a shard result folder: its
// manifest and the files named extra.
func shardOwner(command string, extra ...string) *atomicfile.Owner {
	return &atomicfile.Owner{Name: "fencelab " + command + " --shard", Files: append([]string{shard.FileName}, extra...)}
}

// CheckShardOut refuses, before any work, an --out of a shard that cannot
// be written or that holds files the shard did not write (extra: the
// command's own files besides shard.json).
func CheckShardOut(command, out string, extra ...string) error {
	if err := CheckOutDir("out", out); err != nil {
		return err
	}
	if err := shardOwner(command, extra...).Check(out); err != nil {
		return BadInput("--out %s: %v", quote.S(out), err)
	}
	return nil
}

// saveShard writes the shard's result folder out in one piece: files
// (name → writer) and the manifest of result, replacing a former result
// folder of the same command.
func saveShard(e *Env, command, out string, r *ShardRun, items int, result any, files map[string]func(io.Writer) error, extra []string) error {
	m, err := shard.New(r.Identity, r.Spec, items, result)
	if err != nil {
		return err
	}
	st, err := e.Disk.Stage(out)
	if err != nil {
		return CouldNotSave(err)
	}
	defer st.Abandon()
	for _, name := range extra {
		if write := files[name]; write != nil {
			if err := st.Folder().WriteFile(name, write); err != nil {
				return CouldNotSave(err)
			}
		}
	}
	if err := st.Folder().WriteFile(shard.FileName, m.Write); err != nil {
		return CouldNotSave(err)
	}
	if err := st.Commit(shardOwner(command, extra...)); err != nil {
		return CouldNotSave(fmt.Errorf("could not save into %s: %w", out, err))
	}
	fmt.Fprintf(e.Stdout, "\nshard %s saved in %s; when every shard is done: fencelab merge DIR...\n", r.Spec, filepath.Join(out, shard.FileName))
	return nil
}

// ReadShards reads the shard result folders dirs and checks they are the
// whole of one campaign run by build: the first failure is bad input.
func ReadShards(dirs []string, build shard.Build) (*shard.Campaign, error) {
	if len(dirs) == 0 {
		return nil, BadInput("no shard result folder given (fencelab merge DIR...)")
	}
	ms := make([]*shard.Manifest, len(dirs))
	for k, d := range dirs {
		m, err := shard.Read(d)
		if err != nil {
			return nil, BadInput("%v", err)
		}
		ms[k] = m
	}
	c, err := shard.Check(ms, dirs, build)
	if err != nil {
		return nil, BadInput("%v", err)
	}
	return c, nil
}

// decodeShards decodes each shard's result into a new T, in index order;
// check judges each against its manifest.
func decodeShards[T any](c *shard.Campaign, check func(m *shard.Manifest, r *T) error) ([]*T, error) {
	out := make([]*T, len(c.Shards))
	for k, m := range c.Shards {
		r := new(T)
		if err := shard.Decode(m.Result, r); err != nil {
			return nil, BadInput("%s: its result is not a %s shard's: %v", quote.S(filepath.Join(c.Dirs[k], shard.FileName)), m.Identity.Command, err)
		}
		if err := check(m, r); err != nil {
			return nil, BadInput("%s: %v", quote.S(filepath.Join(c.Dirs[k], shard.FileName)), err)
		}
		out[k] = r
	}
	return out, nil
}
