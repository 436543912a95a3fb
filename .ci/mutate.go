//go:build ignore

// mutate applies one of gremlins' mutations at a file position, for the
// mutants gremlins reports NOT COVERED because Go's coverage profile has no
// block for a switch case's expression (the expression is executed, but no
// counter covers it): .ci/mutation runs the package's tests against each of
// them itself.
//
//	go run .ci/mutate.go FILE LINE COL TYPE
//
// rewrites FILE with the token at LINE:COL (1-based, bytes, as gremlins
// prints them) replaced as gremlins would replace it, and exits 3 when that
// token is not one the mutation applies to.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

var swaps = map[string]map[string]string{
	"CONDITIONALS_BOUNDARY": {"<": "<=", "<=": "<", ">": ">=", ">=": ">"},
	"CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"},
	"ARITHMETIC_BASE":       {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
	"INCREMENT_DECREMENT":   {"++": "--", "--": "++"},
	"INVERT_NEGATIVES":      {"-": ""},
	"INVERT_LOGICAL":        {"&&": "||", "||": "&&"},
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/mutate.go FILE LINE COL TYPE")
		os.Exit(2)
	}
	file, typ := os.Args[1], os.Args[4]
	line, err1 := strconv.Atoi(os.Args[2])
	col, err2 := strconv.Atoi(os.Args[3])
	sw, ok := swaps[typ]
	if err1 != nil || err2 != nil || !ok || line < 1 || col < 1 {
		fmt.Fprintf(os.Stderr, "mutate: bad arguments %q\n", os.Args[1:])
		os.Exit(2)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if line > len(lines) || col > len(lines[line-1]) {
		fmt.Fprintf(os.Stderr, "mutate: %s:%d:%d is outside the file\n", file, line, col)
		os.Exit(3)
	}
	l := lines[line-1]
	rest := l[col-1:]
	// The longest operator at the position that the mutation knows.
	for _, n := range []int{2, 1} {
		if len(rest) < n {
			continue
		}
		tok := rest[:n]
		to, ok := sw[tok]
		if !ok || n == 1 && len(rest) > 1 && isOp(rest[:2]) {
			continue
		}
		if typ == "INVERT_NEGATIVES" && !unary(l[:col-1]) {
			continue // a binary minus: ARITHMETIC_BASE's
		}
		lines[line-1] = l[:col-1] + to + rest[n:]
		if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			os.Exit(1)
		}
		fmt.Printf("%s:%d:%d %s: %q -> %q\n", file, line, col, typ, tok, to)
		return
	}
	fmt.Fprintf(os.Stderr, "mutate: no %s operator at %s:%d:%d (%q)\n", typ, file, line, col, strings.TrimSpace(rest))
	os.Exit(3)
}

func isOp(s string) bool {
	switch s {
	case "<=", ">=", "==", "!=", "++", "--", "&&", "||", "+=", "-=", "*=", "/=", "%=", "<<", ">>", "<-":
		return true
	}
	return false
}

// unary reports whether a minus after before is a unary one.
func unary(before string) bool {
	b := strings.TrimRight(before, " \t")
	if b == "" {
		return true
	}
	return strings.ContainsRune("([{,=:+-*/%<>!&|^", rune(b[len(b)-1])) || strings.HasSuffix(b, "return")
}
