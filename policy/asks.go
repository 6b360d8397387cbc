package policy

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// AsksToReplace reports whether request affirmatively asks to replace the
// file at path (SPEC rule 8). It errs on the side of keeping the file: a
// false "no" costs the model one call with overwrite: true, a false "yes"
// can lose the user's file.
//
// The request asks when the file's name (as NamesFile finds it) stands
// within 6 words after a word starting with rewrit, replac, regenerat,
// overwrit, recreat or reset, in the same sentence, and nothing in that
// sentence negates the act. Words are separated by white space. A word
// ending in . ! ? ; or : (before any closing quote, bracket or markup) ends
// its sentence after its own name test: "Overwrite sales.csv." asks,
// "Overwrite it. sales.csv is wrong" and "Overwrite: sales.csv" do not. A
// blank line ends a sentence too, and a line break ends the 6-word window
// (not the sentence: a negation on the line before still counts).
//
// A sentence negates the act when any of its words, compared in any letter
// case with punctuation, markup and invisible format characters ignored
// and curly or other apostrophes read as "'", is one of: not, never, no,
// nor, neither, none, nothing, nobody, nowhere, without, than, instead,
// unless, cannot, untouched, unchanged, intact, alone, stop, cease, a word
// ending in n't (don't, doesn't, shouldn't, mustn't, can't, won't, ...) or
// its apostrophe-less spelling (dont, doesnt, ...), or a word starting with
// avoid, refrain, forbid, prohibit, prevent or refus. That covers "do not",
// "under no circumstances", negated wishes ("I don't want you to", "please
// don't", "I'd rather you didn't") and negating objects ("rewrite nothing
// in", "replace none of"). The name itself is not read for negations
// ("Rewrite not-final.csv" asks), other names are. A sentence that ends in
// a negation carries it to the next sentence of its paragraph ("No.
// Rewrite sales.csv" and "Please don't! Overwrite sales.csv" do not ask;
// "Do not touch report.md. Rewrite sales.csv" does).
//
// Two more readings keep the guard: a question about the past or a
// complaint ("Why did you overwrite sales.csv?", "Who regenerated
// sales.csv?" — a sentence ending in "?" that starts with why, who, whom,
// whose, did, was, were, has, have or had), and a verb in the past, which
// tells what happened rather than asking for it ("I replaced sales.csv",
// "you've overwritten sales.csv", "the script regenerated sales.csv": a
// verb word ending in ed or en).
func AsksToReplace(request, path string) bool {
	lower := strings.ToLower(request)
	offs := nameOffsets(lower, path)
	if len(offs) == 0 {
		return false
	}
	r := &reading{s: lower, words: splitWords(lower), nameLen: len(strings.ToLower(baseName(path))), names: offs}
	// nameAt[w] is set when a name occurrence starts in word w.
	nameAt := make([]bool, len(r.words))
	k := 0
	for _, o := range offs {
		for k < len(r.words) && r.words[k].end <= o {
			k++
		}
		if k < len(r.words) && r.words[k].start <= o {
			nameAt[k] = true
		}
	}
	carried := false // the sentence before, in this paragraph, ended in a negation ("No.")
	for _, sen := range r.sentences() {
		toks := r.tokens(sen.first, sen.last+1)
		negated := carried && !sen.para || negates(toks)
		carried = len(toks) > 0 && negates(toks[len(toks)-1:])
		if negated || r.inquiry(sen, toks) {
			continue
		}
		for v := sen.first; v <= sen.last; v++ {
			if !isVerb(lower[r.words[v].start:r.words[v].end]) || r.narrative(v) {
				continue
			}
			for i := v + 1; i <= v+6 && i <= sen.last; i++ {
				if lineBreak(lower[r.words[i-1].end:r.words[i].start]) {
					break
				}
				if nameAt[i] {
					return true
				}
			}
		}
	}
	return false
}

// reading is a lower-cased request split for AsksToReplace.
type reading struct {
	s       string
	words   []span
	nameLen int   // byte length of the lower-cased name
	names   []int // offsets of the name's occurrences, ascending
}

type span struct{ start, end int }

// sentence is a range of words, first to last inclusive; para is set when
// it starts a paragraph (the text, or after a blank line).
type sentence struct {
	first, last int
	para        bool
}

func splitWords(s string) []span {
	var out []span
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, span{start, len(s)})
	}
	return out
}

// sentences splits the words into sentences: a word ending in . ! ? ; or :
// ends one, and so does a blank line after a word.
func (r *reading) sentences() []sentence {
	var out []sentence
	first, para := 0, true
	for i, w := range r.words {
		blank := i < len(r.words)-1 && strings.Count(breaks(r.s[w.end:r.words[i+1].start]), "\n") >= 2
		if i == len(r.words)-1 || blank || endsSentence(r.s[w.start:w.end]) {
			out = append(out, sentence{first, i, para})
			first, para = i+1, blank
		}
	}
	return out
}

// breaks returns the line breaks of white space ws, each as "\n" (a CRLF
// is one).
func breaks(ws string) string {
	ws = strings.ReplaceAll(ws, "\r\n", "\n")
	var b strings.Builder
	for _, c := range ws {
		switch c {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func lineBreak(ws string) bool { return breaks(ws) != "" }

// tokens returns the words from first to last (exclusive) as tokens: runs
// of letters, digits, marks and apostrophes, with apostrophe look-alikes
// read as "'", invisible format characters (zero-width spaces, soft
// hyphens) dropped, leading and trailing apostrophes trimmed. The bytes of
// the name's occurrences separate tokens and are never part of one.
func (r *reading) tokens(first, last int) []string {
	var (
		out []string
		b   strings.Builder
		n   = 0 // index into r.names of the next occurrence that may cover a byte
	)
	flush := func() {
		if t := strings.Trim(b.String(), "'"); t != "" {
			out = append(out, t)
		}
		b.Reset()
	}
	for w := first; w < last; w++ {
		ws := r.words[w]
		for i := ws.start; i < ws.end; {
			c, size := utf8.DecodeRuneInString(r.s[i:])
			for n < len(r.names) && r.names[n]+r.nameLen <= i {
				n++
			}
			inName := n < len(r.names) && r.names[n] <= i
			switch {
			case inName:
				flush()
			case unicode.Is(unicode.Cf, c):
			case strings.ContainsRune("'’‘ʼ`´′‛＇", c):
				b.WriteByte('\'')
			case unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsMark(c):
				b.WriteRune(c)
			default:
				flush()
			}
			i += size
		}
		flush()
	}
	return out
}

// negation reports whether token t negates the act wherever it stands in
// its sentence.
func negation(t string) bool {
	switch t {
	case "not", "never", "no", "nor", "neither", "none", "nothing", "nobody", "nowhere", "noone",
		"without", "than", "instead", "unless", "cannot", "untouched", "unchanged", "intact", "alone",
		"stop", "stops", "stopped", "stopping", "cease", "nope", "nah",
		// n't words without their apostrophe, and their first halves when
		// the apostrophe became a space ("don t").
		"dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "cant", "couldnt", "shouldnt",
		"wouldnt", "wont", "mustnt", "neednt", "hasnt", "havent", "hadnt", "aint", "shant", "mightnt",
		"don", "doesn", "didn", "isn", "aren", "wasn", "weren", "couldn", "shouldn", "wouldn", "mustn",
		"needn", "hasn", "haven", "hadn", "shan", "mightn":
		return true
	}
	for _, stem := range [...]string{"avoid", "refrain", "forbid", "prohibit", "prevent", "refus"} {
		if strings.HasPrefix(t, stem) {
			return true
		}
	}
	return strings.HasSuffix(t, "n't")
}

// negates reports whether any of the tokens negates the act.
func negates(toks []string) bool {
	for i, t := range toks {
		if negation(t) || t == "t" && i > 0 && strings.HasSuffix(toks[i-1], "n") {
			return true
		}
	}
	return false
}

// inquiry reports whether the sentence is a question about what happened
// (or a complaint): it ends in "?" and starts with one of a few words.
func (r *reading) inquiry(sen sentence, toks []string) bool {
	w := r.words[sen.last]
	end := strings.TrimRight(r.s[w.start:w.end], closers)
	if !strings.HasSuffix(end, "?") || len(toks) == 0 {
		return false
	}
	switch toks[0] {
	case "why", "who", "whom", "whose", "did", "was", "were", "has", "have", "had":
		return true
	}
	return false
}

// narrative reports whether the verb word v is in the past (it ends in
// ed or en: replaced, rewritten): it then tells what happened ("I
// replaced sales.csv", "the script regenerated sales.csv", "a regenerated
// sales.csv") rather than asking for it.
func (r *reading) narrative(v int) bool {
	w := r.words[v]
	verb := strings.TrimRightFunc(r.s[w.start:w.end], func(c rune) bool { return !unicode.IsLetter(c) })
	return strings.HasSuffix(verb, "ed") || strings.HasSuffix(verb, "en")
}

func isVerb(word string) bool {
	word = strings.TrimLeftFunc(word, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, stem := range [...]string{"rewrit", "replac", "regenerat", "overwrit", "recreat", "reset"} {
		if strings.HasPrefix(word, stem) {
			return true
		}
	}
	return false
}

// closers may follow the punctuation that ends a sentence.
const closers = "\"'’”)]}>*_`"

func endsSentence(word string) bool {
	word = strings.TrimRight(word, closers)
	return word != "" && strings.ContainsRune(".!?;:", rune(word[len(word)-1]))
}
