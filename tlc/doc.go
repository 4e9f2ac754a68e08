// Package tlc runs the TLA+ model checker on fencelab's specs and reads
// what it says.
//
// It resolves tla2tools.jar (Resolver: TLA2TOOLS_JAR, else a SHA-256-verified
// copy in the user cache, else the pinned release downloaded, verified and
// cached; a missing jar or Java is a *MissingToolError whose message is one
// paragraph saying how to provide it), checks that each spec's committed
// PlusCal translation is current (Runner.StaleTranslation), runs each model
// of the manifest (LoadManifest, Runner.Run) with a fresh metadir, and
// judges the run by TLC's exit code and the violated property's name
// (Judge), never by a grep alone.
//
// It also reads TLC's output, with or without -tool (ParseOutput), parses
// the TLA+ values in it with a small lexer and parser (ParseValue), and turns
// a counterexample into a trace.Trace (Output.Trace) whose steps list only
// what changed, at the innermost element, with messages, expiries,
// rejections and the violated property marked for the renderers in package
// trace.
package tlc
