package patch_test

import (
	"errors"
	"fmt"

	"github.com/stet-dev/stet/patch"
)

func Example() {
	files, err := patch.Parse(`*** Begin Patch
*** Update File: greet.py
@@ def greet():
-    print("Hi")
+    print("Hello")
*** End Patch`)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := files[0]
	a, err := patch.Apply([]byte("def greet():\n    print(\"Hi\")\n"), f.Hunks)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Kind, f.Path)
	fmt.Print(string(a.Text))
	r := a.Regions[0]
	fmt.Printf("line %d: %d bytes -> %q\n", r.Line, r.OldBytes, r.New)
	// Output:
	// update greet.py
	// def greet():
	//     print("Hello")
	// line 2: 16 bytes -> "    print(\"Hello\")\n"
}

func ExampleApply_nearMiss() {
	files, _ := patch.Parse("--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,3 @@\n func f() int {\n-    return 1\n+    return 2\n }\n")
	_, err := patch.Apply([]byte("func f() int {\n\treturn 1\n}\n"), files[0].Hunks)
	var he *patch.HunkError
	if errors.As(err, &he) {
		fmt.Println(he.Kind)
		fmt.Println(he.Msg)
		fmt.Print(he.Near)
	}
	// Output:
	// no_match
	// its 3 old lines are not in the file as written; nearest: lines 1-3 (2 of 3 equal); line 2 (a removed line) differs in indentation (file 1 tab, patch 4 spaces)
	// 00001|func f() int {
	// 00002|	return 1
	// 00003|}
}
