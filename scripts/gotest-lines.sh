#!/bin/sh
# gotest-lines.sh: reads `go test -json` on stdin and prints go test's own
# lines, each as soon as its test or package ends (make test's passes).
#
# Why: `go test ./...` prints each package's lines in the order of the
# packages, so a slow package holds back the lines of every package after
# it, however long ago they ended (issue 36: 11 silent minutes). With
# -json, go test passes each event on as it happens.
#
# What it prints is what go test prints without -v:
# - a package's "ok" or "?" line when the package ends, and for a failed
#   package the lines its binary printed outside any test ("FAIL", a
#   panic) and its "FAIL <package>" line;
# - a failed test's output (its log and its "--- FAIL" line) when it fails,
#   and the output of tests that never ended (a timeout, a crash) when
#   their package fails;
# - build errors, and every line that is not an event (go's own messages).
# A test that passes or skips prints nothing.
#
# mawk reads its input a block at a time unless told -W interactive, and
# would hold the lines back itself; other awks read a line as it comes.
set -u
interactive=
if awk -W version 2>/dev/null | grep -q mawk; then
	interactive="-W interactive"
fi
# shellcheck disable=SC2086 # $interactive is empty or two words
exec awk $interactive '
# unquote reads a JSON string body (after its opening quote) up to its
# closing quote and undoes its escapes; a \u escape beyond ASCII (Go
# writes only U+2028, U+2029 and U+FFFD so) becomes "?".
function unquote(s,    out, c, code) {
	out = ""
	while (match(s, /["\\]/)) {
		out = out substr(s, 1, RSTART - 1)
		if (substr(s, RSTART, 1) == "\"")
			return out
		c = substr(s, RSTART + 1, 1)
		s = substr(s, RSTART + 2)
		if (c == "n") out = out "\n"
		else if (c == "t") out = out "\t"
		else if (c == "r") out = out "\r"
		else if (c == "b") out = out "\b"
		else if (c == "f") out = out "\f"
		else if (c == "u") {
			code = hex(substr(s, 1, 4))
			s = substr(s, 5)
			out = out ((code > 0 && code < 128) ? sprintf("%c", code) : "?")
		} else out = out c
	}
	return out s
}

function hex(h,    i, n) {
	n = 0
	h = tolower(h)
	for (i = 1; i <= length(h); i++)
		n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return n
}

# field is the string field name of the event on this line ("" if none).
# Inside a JSON string every quote is escaped, so "name":" is a field.
function field(name,    i) {
	i = index($0, "\"" name "\":\"")
	if (i == 0)
		return ""
	return unquote(substr($0, i + length(name) + 4))
}

# failed puts the "--- FAIL" line of a test before the rest of its
# output: verbose, as under -json, go test prints it last.
function failed(s,    n, lines, i, head, rest) {
	head = ""
	rest = ""
	n = split(s, lines, "\n")
	for (i = 1; i < n; i++) {
		if (lines[i] ~ /^ *--- FAIL: /)
			head = head lines[i] "\n"
		else
			rest = rest lines[i] "\n"
	}
	return head rest lines[n]
}

function show(s) {
	printf "%s", s
	fflush()
}

# forget drops what is kept for package pkg, printing it first if loud.
function forget(pkg, loud,    k, parts) {
	for (k in kept) {
		split(k, parts, SUBSEP)
		if (parts[1] == pkg) {
			if (loud)
				show(kept[k] subs[k])
			delete kept[k]
			delete subs[k]
		}
	}
	if (loud && (pkg in outside))
		show(outside[pkg])
	delete outside[pkg]
}

substr($0, 1, 1) != "{" { show($0 "\n"); next }

{
	action = field("Action")
	pkg = field("Package")
	test = field("Test")
}

action == "build-output" { show(field("Output")); next }
pkg == "" { next }

action == "output" {
	out = field("Output")
	if (test != "") {
		# -json runs the binary verbose; without -v these do not show.
		if (out !~ /^=== (RUN|PAUSE|CONT|NAME) /)
			kept[pkg, test] = kept[pkg, test] out
	} else if (out ~ /^(ok|\?) /)
		show(out)
	else
		outside[pkg] = outside[pkg] out
	next
}

# A failed test: its "--- FAIL" line first, then its output, then its
# failed subtests, which wait in subs until it ends.
test != "" && action == "fail" {
	out = failed(kept[pkg, test]) subs[pkg, test]
	delete kept[pkg, test]
	delete subs[pkg, test]
	if (match(test, /\/[^\/]*$/))
		subs[pkg, substr(test, 1, RSTART - 1)] = subs[pkg, substr(test, 1, RSTART - 1)] out
	else
		show(out)
	next
}
test != "" && (action == "pass" || action == "skip") { delete kept[pkg, test]; delete subs[pkg, test]; next }
test == "" && action == "fail" { forget(pkg, 1); next }
test == "" && (action == "pass" || action == "skip") { forget(pkg, 0); next }
'
