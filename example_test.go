package stet_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stet-dev/stet"
)

// Example shows the library: open a workspace, take a session, read, edit,
// and see a refusal when the file changed behind the session's back.
func Example() {
	root, _ := os.MkdirTemp("", "stet-example-")
	state, _ := os.MkdirTemp("", "stet-example-state-")
	defer os.RemoveAll(root)
	defer os.RemoveAll(state)
	os.WriteFile(filepath.Join(root, "greeting.txt"), []byte("hello\nworld\n"), 0o644)

	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	s, _ := ws.Session("agent-1")
	ctx := context.Background()

	r, _ := s.Read(ctx, stet.ReadArgs{Path: "greeting.txt"})
	fmt.Println(r.Frame)

	old, repl := "world", "there"
	res, _ := s.Edit(ctx, stet.EditArgs{Path: "greeting.txt", OldString: &old, NewString: &repl})
	fmt.Println(res.Receipt.Tool, res.Receipt.Verified, res.Receipt.Matches[0].Line)

	// Someone else changes the file: the session's next edit is refused.
	os.WriteFile(filepath.Join(root, "greeting.txt"), []byte("hi\nthere\n"), 0o644)
	old, repl = "there", "you"
	_, err = s.Edit(ctx, stet.EditArgs{Path: "greeting.txt", OldString: &old, NewString: &repl})
	var refusal *stet.Refusal
	if errors.As(err, &refusal) {
		fmt.Println(refusal.Kind)
		fmt.Println(refusal.Message)
	}
	// Output:
	// 00001|hello
	// 00002|world
	// 00003|
	// (3 lines)
	// edit true 2
	// changed
	// refused: greeting.txt changed since you read it (then 12 bytes, 3 lines; now 9 bytes, 3 lines); read it again, then retry the edit
}
