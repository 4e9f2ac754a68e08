package tlc

import (
	"strconv"

	"github.com/fencelab/fencelab/trace"
)

// Flatten lists the leaves of v as element paths under name: a record's
// fields as name.f, a function's or a sequence's elements as name[k]. Empty
// records, functions and sequences, sets and scalars are leaves.
func Flatten(name string, v Value) []trace.Var {
	var out []trace.Var
	walk(name, v, func(path string, leaf Value) {
		out = append(out, trace.Var{Path: path, Value: leaf.String()})
	})
	return out
}

func walk(path string, v Value, emit func(string, Value)) {
	switch {
	case v.Kind == KindRecord && len(v.Fields) > 0:
		for _, f := range v.Fields {
			walk(path+"."+f.Key.Str, f.Val, emit)
		}
	case v.Kind == KindFunction && len(v.Fields) > 0:
		for _, f := range v.Fields {
			walk(path+"["+f.Key.String()+"]", f.Val, emit)
		}
	case v.Kind == KindSeq && len(v.Elems) > 0:
		for i, e := range v.Elems {
			walk(path+"["+strconv.Itoa(i+1)+"]", e, emit)
		}
	default:
		emit(path, v)
	}
}

// FlattenPair flattens two values of one variable so that trace.Diff of the
// results names the innermost element that changed. Where both have the
// same shape (records with the same fields, functions with the same
// domain, sequences of the same length) it descends; where the shape
// changed — a message appended to a queue, a field added — the container
// itself is the innermost thing that changed, and both sides get one leaf
// for it, so a queue reads "q: <<a>> → <<a, b>>" rather than a scatter of
// appeared and vanished element paths.
//
// One shape change is told element-wise: a non-empty sequence that grew at
// its end (a log appended to) shows only the new elements, as new paths.
func FlattenPair(name string, prev, next Value) (p, n []trace.Var) {
	pairWalk(name, prev, next, func(path string, a, b Value, appeared bool) {
		if !appeared {
			p = append(p, trace.Var{Path: path, Value: a.String()})
		}
		n = append(n, trace.Var{Path: path, Value: b.String()})
	})
	return p, n
}

func pairWalk(path string, a, b Value, emit func(path string, a, b Value, appeared bool)) {
	if isExtension(a, b) {
		for i, e := range b.Elems {
			elem := path + "[" + strconv.Itoa(i+1) + "]"
			if i < len(a.Elems) {
				pairWalk(elem, a.Elems[i], e, emit)
			} else {
				emit(elem, Value{}, e, true)
			}
		}
		return
	}
	if !sameShape(a, b) {
		emit(path, a, b, false)
		return
	}
	switch a.Kind {
	case KindRecord:
		for i, f := range a.Fields {
			pairWalk(path+"."+f.Key.Str, f.Val, b.Fields[i].Val, emit)
		}
	case KindFunction:
		for i, f := range a.Fields {
			pairWalk(path+"["+f.Key.String()+"]", f.Val, b.Fields[i].Val, emit)
		}
	case KindSeq:
		for i, e := range a.Elems {
			pairWalk(path+"["+strconv.Itoa(i+1)+"]", e, b.Elems[i], emit)
		}
	default:
		emit(path, a, b, false)
	}
}

// isExtension reports whether b is the non-empty sequence a with elements
// appended.
func isExtension(a, b Value) bool {
	if a.Kind != KindSeq || b.Kind != KindSeq || len(a.Elems) == 0 || len(b.Elems) <= len(a.Elems) {
		return false
	}
	for i := range a.Elems {
		if !a.Elems[i].Equal(b.Elems[i]) {
			return false
		}
	}
	return true
}

// sameShape reports whether a and b are containers with the same keys, so
// that their elements can be compared one by one.
func sameShape(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindRecord, KindFunction:
		if len(a.Fields) != len(b.Fields) || len(a.Fields) == 0 {
			return false
		}
		for i := range a.Fields {
			if !a.Fields[i].Key.Equal(b.Fields[i].Key) {
				return false
			}
		}
		return true
	case KindSeq:
		return len(a.Elems) == len(b.Elems) && len(a.Elems) > 0
	}
	return false
}
