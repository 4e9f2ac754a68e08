package distlockspec

import (
	"fmt"

	"github.com/fencelab/fencelab/impl"
)

// The labels of the specs' service and resource processes: each loops on
// one label, handling one input per step.
const (
	ServiceLabel  = "Serve"
	ResourceLabel = "Access"
)

// PhaseLabel is the spec's label (the value of pc) for a client in phase p:
// the specs' client labels are Go's client phases, and the step a client
// takes at a label is its handling of one input in that phase.
func PhaseLabel(p impl.Phase) string {
	switch p {
	case impl.Idle:
		return "Acquire"
	case impl.Acquiring:
		return "Receive"
	case impl.BackingOff:
		return "Backoff"
	case impl.Reading:
		return "ReadCounter"
	case impl.Thinking:
		return "WriteCounter"
	case impl.Writing:
		return "Release"
	case impl.Finished:
		return "Done"
	}
	return fmt.Sprintf("Phase%d", uint8(p))
}

// Action is a spec action: the PlusCal label (the action's name in the
// translation) and the process that takes it ("c1", "service", "resource").
type Action struct {
	Label   string
	Process string
}

// The client's renewal steps in DistLock.tla: actions of their own, in any
// phase, outside the algorithm (a renewal's answer may come in any phase).
const (
	RenewLabel   = "Renew"
	RenewedLabel = "Renewed"
)

// SpecAction is the spec action of Go step a taken in world w (before the
// step): a client's action is the label of its phase (its renewal steps
// Renew and Renewed, whatever its phase), the service's is Serve and the
// resource's Access. The spec's state after the step, not
// the label, tells which input the step handled (which message left the
// network, which timer left timers).
func SpecAction(w *impl.World, a impl.Action) Action {
	switch {
	case a.Node.IsLockNode() && w.Sys.Redlock():
		return Action{Label: ServiceLabel, Process: LockNodeName(a.Node.LockIndex())}
	case a.Node == impl.ServiceNode:
		return Action{Label: ServiceLabel, Process: a.Node.String()}
	case a.Node == impl.ResourceNode:
		return Action{Label: ResourceLabel, Process: a.Node.String()}
	case a.Input.Kind == impl.InputTimer && a.Input.Timer.Kind == impl.TimerRenew:
		return Action{Label: RenewLabel, Process: a.Node.String()}
	case a.Input.Kind == impl.InputMessage && a.Input.Msg.Kind == impl.MsgRenewed:
		return Action{Label: RenewedLabel, Process: a.Node.String()}
	}
	return Action{Label: PhaseLabel(w.Sys.Clients[a.Node.ClientIndex()].Phase()), Process: a.Node.String()}
}

// Mapping is one row of the action mapping: a Go step (the node, the phase
// a client is in, the input) and the spec action it is. DESIGN.md's table
// "Spec actions and the Go steps they stand for" is this table in prose.
type Mapping struct {
	Node  string // "client", "service", "lock node" (a Redlock row's) or "resource"
	Phase string // the client's phase; "" for the service and the resource
	Input string // the Go input
	Label string // the spec action (PlusCal label)
	Does  string // what the step does, in the spec's words
}

// Mappings is the whole action mapping, one row per Go step that the
// untimed world can take (an input an actor ignores in a phase has no row:
// the reliable network never delivers it there).
func Mappings() []Mapping {
	return []Mapping{
		{"client", "Idle", "InputStart", "Acquire", "sends acquire; send rule: sets the validity timer"},
		{"client", "Acquiring", "MsgGrant", "Receive", "holds, keeps lease and token, sends read; arrival rule: sets the validity timer"},
		{"client", "Acquiring", "MsgGrant (late, send rule)", "Receive", "sends release of the grant and acquire again (a retry), or gives up"},
		{"client", "Acquiring", "MsgReject", "Receive", "within MaxRetries: BackingOff, sets backoff; past it: gives the section up"},
		{"client", "Acquiring", "TimerValidity", "Receive", "send rule: late (the window ended before the answer)"},
		{"client", "BackingOff", "TimerBackoff", "Backoff", "sends acquire again"},
		{"client", "Reading", "MsgReadReply", "ReadCounter", "accepted and holding: Thinking, sets think; else ends the section (release, next acquire)"},
		{"client", "Reading", "TimerValidity", "ReadCounter", "stops believing (LoseLease); renewal: cancels the renewal timer"},
		{"client", "Thinking", "TimerThink", "WriteCounter", "holding: sends write read+1; else ends the section without writing"},
		{"client", "Thinking", "TimerValidity", "WriteCounter", "stops believing (LoseLease); renewal: cancels the renewal timer"},
		{"client", "Writing", "MsgWriteReply", "Release", "ends the section, committed if accepted: release, next acquire"},
		{"client", "Writing", "TimerValidity", "Release", "stops believing (LoseLease); renewal: cancels the renewal timer"},
		{"client", "Reading", "TimerRenew", RenewLabel, "renewal (Renewals > 0): believing and within the budget, sends renew of its lease"},
		{"client", "Thinking", "TimerRenew", RenewLabel, "renewal (Renewals > 0): believing and within the budget, sends renew of its lease"},
		{"client", "Writing", "TimerRenew", RenewLabel, "renewal (Renewals > 0): believing and within the budget, sends renew of its lease"},
		{"client", "Acquiring", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"client", "BackingOff", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"client", "Reading", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"client", "Thinking", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"client", "Writing", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"client", "Finished", "MsgRenewed", RenewedLabel, "renewal's answer: for the lease it believes in, granted: validity and (within the budget) renewal timers set, renewed; refused: stops believing, renewal timer cancelled; else dropped"},
		{"service", "", "MsgAcquire", ServiceLabel, "free: grants lease last_lease+1 (its token TokenOf), sets lease timer; durable counter: persists last_lease+1 instead, Persisting, sets the persist timer; held or persisting: rejects"},
		{"service", "", "TimerPersist", ServiceLabel, "durable counter: the store holds it; Acquired, sends the grant persisted for, sets lease timer"},
		{"service", "", "MsgRelease", ServiceLabel, "compare-and-delete on holder and lease; cancels the lease timer (and advances the revision)"},
		{"service", "", "TimerLease", ServiceLabel, "expiry: Expired; revision tokens: the revision advances; Check \"sequencer\": sets the lock-delay timer"},
		{"service", "", "TimerLockDelay", ServiceLabel, "Check \"sequencer\": the lock-delay ends, the lock may be granted again"},
		{"service", "", "MsgCheck", ServiceLabel, "Check \"sequencer\": answers whether the token is the current holder's"},
		{"service", "", "InputRestart", ServiceLabel, "a restarting service (at most MaxRestarts, while a client is unfinished): the lock Available, the lease and persist timers gone, volatile: last_lease 0; held_at_restart"},
		{"service", "", "MsgRenew", ServiceLabel, "renewal: the holder's current lease: lease timer set again, renewed ok; else renewed refused"},
		{"lock node", "", "MsgAcquire", ServiceLabel, "Redlock (node n1 … nN, Serve of that node): free or expired: SET NX, stores the client and its value, sets the lease timer, grants; held: rejects"},
		{"lock node", "", "MsgRelease", ServiceLabel, "Redlock: deletes the key only if client and value match; cancels the lease timer"},
		{"lock node", "", "TimerLease", ServiceLabel, "Redlock: the key expires by the node's own clock (any moment: a clock jump)"},
		{"lock node", "", "InputRestart", ServiceLabel, "Redlock: the node restarts without persistence (at most MaxRestarts, while a client is unfinished): the key and its lease timer gone; held_at_restart"},
		{"client", "Acquiring", "MsgGrant (Redlock)", "Receive", "Redlock: counts one node's answer; on the last, a majority with the window open (not late): holds, sends read (arrival rule: sets the validity timer); else releases on every node and backs off, or gives up"},
		{"client", "Acquiring", "MsgReject (Redlock)", "Receive", "Redlock: counts one node's answer, decides on the last as for a grant"},
		{"resource", "", "MsgRead", ResourceLabel, "the check (cas: sets the current token), logs, replies with the counter; Check \"sequencer\": queues it, asks about the head's token"},
		{"resource", "", "MsgWrite", ResourceLabel, "the check, the counter, logs, replies; non-atomic and accepted: only checked, queued in pending; Check \"sequencer\": queues it, asks about the head's token"},
		{"resource", "", "MsgCheckReply", ResourceLabel, "Check \"sequencer\": applies or refuses the head as answered, logs, replies, asks about the next"},
		{"resource", "", "MsgApply", ResourceLabel, "non-atomic: pending's head applied, logged, replied to"},
	}
}
