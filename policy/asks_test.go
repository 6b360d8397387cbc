package policy

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// askCases are request sentences with the decision rule 8 must take for
// data/sales.csv: true when the request asks to replace it (the guard is
// lifted), false when the guard stays.
var askCases = []struct {
	request string
	lifts   bool
}{
	// Phrasings users write.
	{"I don't want you to rewrite sales.csv", false},
	{"Do NOT, under any circumstances, rewrite sales.csv", false},
	{"Never overwrite sales.csv", false},
	{"No overwriting of sales.csv", false},
	{"Don't regenerate sales.csv", false},
	{"Do not replace sales.csv", false},
	{"This doesn't mean you should rewrite sales.csv", false},
	{"You shouldn't overwrite sales.csv", false},
	{"You mustn't recreate sales.csv", false},
	{"You can't reset sales.csv", false},
	{"We won't regenerate sales.csv", false},
	{"Avoid rewriting sales.csv", false},
	{"Please refrain from overwriting sales.csv", false},
	{"Fix the totals without rewriting sales.csv", false},
	{"Edit it instead of rewriting sales.csv", false},
	{"Patch the rows rather than regenerate sales.csv", false},
	{"Under no circumstances overwrite sales.csv", false},
	{"Please don't replace sales.csv", false},
	{"Rewrite nothing in sales.csv", false},
	{"Replace none of sales.csv", false},
	{"dont rewrite sales.csv", false},
	{"Nor should you overwrite sales.csv", false},
	// The examples of SPEC rule 8.
	{"Update sales.csv.", false},
	{"Rewrite sales.csv", true},
	{"Overwrite sales.csv.", true},
	{"Overwrite it. sales.csv is wrong", false},
	{"Overwrite: sales.csv", false},
	{"Rewrite old-sales.csv", false},
	{"Regenerate sales.csv.bak", false},
	{"Recreate sales.csv2", false},
	{"Regenerate `Sales.CSV` from the database", true},
	{"Reset data/sales.csv to the template", true},
	// Letter case and punctuation between.
	{"DO NOT REWRITE SALES.CSV", false},
	{"do... not... rewrite sales.csv", false},
	{"Do — not — overwrite sales.csv", false},
	{"(not) to be regenerated: sales.csv", false},
	{"**Never** replace `sales.csv`", false},
	{"don’t rewrite sales.csv", false},
	{"don‘t rewrite sales.csv", false},
	{"donʼt rewrite sales.csv", false},
	{"don`t rewrite sales.csv", false},
	{"DON'T overwrite sales.csv", false},
	{"don t rewrite sales.csv", false},
	{"do\u200bn't rewrite sales.csv", false}, // a zero-width space does not hide the word
	{"n\u00adot: rewrite sales.csv", false},  // nor a soft hyphen
	{"Do\u00a0not\u00a0rewrite sales.csv", false},
	// Negations after the verb, anywhere in the sentence.
	{"Rewrite sales.csv? No.", true}, // the question ends the sentence; "No." is another one
	{"Rewrite sales.csv — no, wait", false},
	{"Replace sales.csv, not report.md", false},
	{"Regenerate sales.csv only if nothing else works", false},
	{"Overwrite sales.csv unless the totals already match", false},
	{"Rewrite sales.csv and then stop", false},
	{"Overwrite sales.csv is forbidden", false},
	{"Replace sales.csv is what you must avoid", false},
	{"Rewrite sales.csv is prohibited", false},
	{"Regenerating sales.csv is not allowed", false},
	{"Leave sales.csv alone and rewrite report.md", false},
	{"Rewrite report.md; sales.csv stays untouched", false},
	{"Rewrite report.md and keep sales.csv unchanged", false},
	{"Rewrite report.md, leaving sales.csv intact", false},
	{"Recreate the report, refusing to touch sales.csv", false},
	{"Rewrite the index, never sales.csv", false},
	{"I'd rather you didn't overwrite sales.csv", false},
	{"It isn't OK to rewrite sales.csv", false},
	{"You cannot regenerate sales.csv", false},
	{"Nobody asked you to rewrite sales.csv", false},
	{"Neither rewrite nor replace sales.csv", false},
	{"Prevent anything from overwriting sales.csv", false},
	{"Stop overwriting sales.csv", false},
	{"Nope, don't reset sales.csv", false},
	// Questions about the past and narrated acts are not requests.
	{"Why did you overwrite sales.csv?", false},
	{"Who regenerated sales.csv?", false},
	{"Did you replace sales.csv?", false},
	{"I replaced sales.csv by mistake, fix it", false},
	{"You've overwritten sales.csv, restore it", false},
	{"The report is regenerated from sales.csv", false},
	{"It was rewritten with sales.csv in mind", false},
	{"Replaced sales.csv with the export, as planned.", false},
	{"**Overwritten** sales.csv", false},
	{"Then the script replaced sales.csv", false},
	{"Please provide a regenerated sales.csv", false}, // in doubt: costs one call with overwrite
	// Affirmative asks.
	{"Could you rewrite sales.csv?", true},
	{"Please regenerate sales.csv from the raw export", true},
	{"Go ahead and overwrite sales.csv", true},
	{"Yes, replace sales.csv with the cleaned version", true},
	{"Recreate sales.csv from scratch; the old one is corrupt.", true},
	{"Reset sales.csv to its header row", true},
	{"You may rewrite sales.csv entirely", true},
	{"Feel free to overwrite `data/sales.csv`", true},
	{"Rewrite the whole of sales.csv", true},
	{"Replace everything in sales.csv with the new rows", true},
	{"Regenerate it all: first summary.csv, then sales.csv", false}, // the ":" ends the verb's sentence
	{"Overwrite report.md and sales.csv", true},
	{"The cleanup: rewrite sales.csv", true},             // the verb's own sentence is the second one
	{"Create summary.csv. Then rewrite sales.csv", true}, // the first sentence negates nothing
	{"Notes: rewrite sales.csv", true},                   // "notes" is not "not"
	{"Another task: rewrite sales.csv", true},            // "another" holds "no" but is not "no"
	// Negations kept to their own sentence.
	{"Do not touch report.md. Rewrite sales.csv.", true},
	{"Do not touch report.md; rewrite sales.csv", true},
	{"Don't worry about the tests!\nRegenerate sales.csv", true},
	{"Don't stop.\n\nRegenerate sales.csv", true},
	{"Don't stop\n\nregenerate sales.csv", true}, // a blank line ends a sentence
	{"No. Rewrite sales.csv", false},             // a sentence ending in a negation carries it to the next
	{"Please don't! Overwrite sales.csv", false},
	{"No, no, no. Rewrite sales.csv", false},
	{"No.\n\nRewrite sales.csv", true},   // not across a blank line
	{"Do not\nrewrite sales.csv", false}, // a single line break does not end the sentence
	// The window: 6 words, one sentence, one line.
	{"Rewrite a b c d e sales.csv", true},
	{"Rewrite a b c d e f sales.csv", false},
	{"Rewrite the report\nsales.csv is the source", false},
	{"Rewrite the report. sales.csv has the data", false},
	// Not a lifting verb.
	{"Update sales.csv", false},
	{"Write sales.csv again", false},
	{"Rewrote sales.csv", false},
	{"Re-write sales.csv", false},
	{"prereplace sales.csv", false},
	{"", false},
}

// TestAsksToReplaceOwnName: the letters of the file's own name are never
// read as a negation; other names are.
func TestAsksToReplaceOwnName(t *testing.T) {
	for _, tc := range []struct {
		request, path string
		lifts         bool
	}{
		{"Rewrite not-final.csv", "not-final.csv", true},
		{"Overwrite no.txt", "no.txt", true},
		{"Regenerate `dont-touch.md`", "dont-touch.md", true},
		{"Rewrite not-final.csv and sales.csv", "sales.csv", false},
		{"Rewrite no.txt", "sales.csv", false},
		{"rewrite rewrite", "rewrite", true},
		{"replaced replaced", "replaced", false},
	} {
		if got := AsksToReplace(tc.request, tc.path); got != tc.lifts {
			t.Errorf("AsksToReplace(%q, %q) = %v, want %v", tc.request, tc.path, got, tc.lifts)
		}
	}
}

func TestAsksToReplaceCases(t *testing.T) {
	for _, tc := range askCases {
		if got := AsksToReplace(tc.request, "data/sales.csv"); got != tc.lifts {
			t.Errorf("AsksToReplace(%q) = %v, want %v", tc.request, got, tc.lifts)
		}
		// The guard agrees: a named file is refused unless the request asks.
		if NamesFile(tc.request, "data/sales.csv") {
			refused := GuardReplace("data/sales.csv", "2 lines → 1 line", tc.request, false, false) != ""
			if refused == tc.lifts {
				t.Errorf("GuardReplace(%q) refused = %v, want %v", tc.request, refused, !tc.lifts)
			}
		}
	}
}

// listedNegations are the negations rule 8 must read as such, as a
// model or a user might write them before the verb.
var listedNegations = []string{
	"not", "never", "no", "nor", "don't", "dont", "do not", "doesn't", "shouldn't", "mustn't", "can't",
	"won't", "avoid", "refrain from", "without", "rather than", "instead of", "under no circumstances",
	"I don't want you to", "please don't", "Do NOT, under any circumstances,", "don’t", "DON'T", "Never,",
	"you should not", "(not)", "**don't**", "I would rather you didn't", "cannot", "neither",
}

// liftingSentence builds a random request that asks to replace sales.csv,
// and the index of its verb word.
func liftingSentence(rng *rand.Rand) (words []string, verb int) {
	verbs := []string{"rewrite", "Replace", "REGENERATE", "overwrite", "recreate", "reset", "Rewriting", "replacing", "**Overwrite**"}
	leads := [][]string{nil, {"Please"}, {"Now"}, {"Then,"}, {"OK", "so"}, {"Go", "ahead", "and"}, {"You", "may"}, {"First", "fix", "the", "header", "and"}}
	fills := [][]string{nil, {"the"}, {"all", "of"}, {"the", "whole", "of"}, {"everything", "in"}, {"the", "data", "in"}}
	names := []string{"sales.csv", "`sales.csv`", "data/sales.csv", "Sales.CSV", `"sales.csv"`, "sales.csv."}
	tails := [][]string{nil, {"from", "the", "export"}, {"with", "clean", "rows"}, {"entirely"}}
	words = append(words, leads[rng.IntN(len(leads))]...)
	verb = len(words)
	words = append(words, verbs[rng.IntN(len(verbs))])
	words = append(words, fills[rng.IntN(len(fills))]...)
	words = append(words, names[rng.IntN(len(names))])
	words = append(words, tails[rng.IntN(len(tails))]...)
	return words, verb
}

// TestNegationNeverLifts is rule 8's property: inserting any listed
// negation before the verb of a lifting sentence never lifts, wherever it
// goes in the sentence before the verb, in any letter case.
func TestNegationNeverLifts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 5000 {
		words, verb := liftingSentence(rng)
		base := strings.Join(words, " ")
		if !AsksToReplace(base, "data/sales.csv") {
			t.Fatalf("generated sentence does not lift: %q", base)
		}
		neg := listedNegations[rng.IntN(len(listedNegations))]
		switch rng.IntN(3) {
		case 1:
			neg = strings.ToUpper(neg)
		case 2:
			neg = strings.ToLower(neg)
		}
		at := rng.IntN(verb + 1)
		out := append(append(append([]string{}, words[:at]...), neg), words[at:]...)
		req := strings.Join(out, " ")
		if AsksToReplace(req, "data/sales.csv") {
			t.Fatalf("a negation lifted the guard: %q", req)
		}
		if GuardReplace("data/sales.csv", "2 lines → 1 line", req, false, false) == "" {
			t.Fatalf("GuardReplace let %q through", req)
		}
	}
}

// FuzzNegationKeepsGuard: AsksToReplace never panics, and inserting a
// listed negation at a word boundary of any request never turns a refusal
// into a lift.
func FuzzNegationKeepsGuard(f *testing.F) {
	for _, tc := range askCases {
		f.Add(tc.request, "data/sales.csv", uint(len(tc.request)), uint8(0))
	}
	f.Add("Rewrite sales.csv\n\nand more", "sales.csv", uint(9), uint8(3))
	f.Fuzz(func(t *testing.T, request, path string, pos uint, which uint8) {
		before := AsksToReplace(request, path)
		neg := listedNegations[int(which)%len(listedNegations)]
		if NamesFile(neg, path) {
			return // inserting the file's own name is not inserting a negation
		}
		// Word boundaries: where white space starts or ends, and the ends.
		var cuts []int
		prevSpace := true
		for i, r := range request {
			if sp := unicode.IsSpace(r); sp != prevSpace {
				cuts = append(cuts, i)
				prevSpace = sp
			}
		}
		cuts = append(cuts, 0, len(request))
		at := cuts[int(pos%uint(len(cuts)))]
		req := request[:at] + " " + neg + " " + request[at:]
		if after := AsksToReplace(req, path); after && !before {
			t.Fatalf("inserting %q turned a refusal into a lift:\n%q\n%q", neg, request, req)
		}
	})
}
