// Package tlc is a generic driver of the TLA+ model checker TLC: it runs
// TLC on a folder of specs and reads what it says. It knows TLC, not
// fencelab's specs: it imports nothing of package impl, and what the
// DistLock* specs' variables mean is package distlockspec's.
//
// It resolves tla2tools.jar (Resolver: TLA2TOOLS_JAR, else a SHA-256-verified
// copy in the user cache, else the pinned release downloaded, verified and
// cached; a missing jar or Java is a *MissingToolError whose message is one
// paragraph saying how to provide it), checks that each spec's committed
// PlusCal translation is current (Runner.StaleTranslation), runs each model
// of the manifest (LoadManifest, Runner.Run) with a fresh metadir, and
// judges the run by TLC's exit code and the violated property's name
// (Judge), never by a grep alone. A Runner with a Cache reads the result of
// a run whose inputs (java, the jar, the options, the spec and cfg and the
// modules they reach) are byte for byte an earlier finished run's from it,
// and judges it as a fresh one (Result.Cached says so); a model's heap
// follows its size (ModelHeap), a trace validation's its traces (HeapFor). A manifest's design names are passed on
// uninterpreted; the list of properties a model checks (Verdicts) is the
// caller's.
//
// It also reads TLC's output, with or without -tool (ParseOutput), parses
// the TLA+ values in it with a small lexer and parser (ParseValue), and
// flattens them into package trace's variables (Flatten, FlattenPair);
// turning a counterexample into a trace.Trace is distlockspec.Trace.
package tlc
