package run

import (
	"fmt"

	"github.com/fencelab/fencelab/live/history"
	"github.com/fencelab/fencelab/live/nemesis"
	"github.com/fencelab/fencelab/live/story"
)

// StoryText tells the story the run's schedule follows: the model's
// counterexample and the live schedule it maps to (Story), or why the
// run keeps the classic story or a random one.
func (c Config) StoryText() string {
	if st, ok := c.Story(); ok {
		return st.Text(c.Setup.TTL)
	}
	switch {
	case c.Nemesis == nemesis.Random:
		return fmt.Sprintf("A random schedule of %s drawn from seed %d (schedule.json), no model's story.\n", c.Fault, c.Seed)
	case c.Fault == history.FaultNone:
		return "No fault: no story.\n"
	case c.Classic:
		return story.Classic(c.Fault, "the run asked for it")
	case c.Setup.Unchecked:
		return story.Classic(c.Fault, "the client is unchecked: the models' stories are the checked client's, and the classic pause after the read is where the unchecked one acts past its validity")
	}
	return story.Classic(c.Fault, fmt.Sprintf("no counterexample of row %s uses it (the models' untimed traces lose a grant by a lease's end, a client pause, or by a restart)", c.Setup.Design))
}
