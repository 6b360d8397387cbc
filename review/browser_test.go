package review_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/reviewfixture"
)

// removeProfile removes Chromium's profile directory, retrying briefly
// while a straggling helper finishes a write, and only logs what is left.
func removeProfile(t *testing.T, dir string) {
	var err error
	for range 20 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("chromium profile %s not removed: %v", dir, err)
}

// cdp drives a headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: requests on fd 3, answers on fd 4, each
// message ended by a NUL byte). No network port is opened.
type cdp struct {
	t       *testing.T
	w       *os.File
	r       *bufio.Reader
	id      int
	session string
}

func (c *cdp) send(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	msg := map[string]any{"id": c.id, "method": method, "params": params}
	if c.session != "" {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		line, err := c.r.ReadBytes(0)
		if err != nil {
			c.t.Fatalf("%s: reading: %v", method, err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line[:len(line)-1], &m); err != nil || m.ID != c.id {
			continue // an event, or another answer
		}
		if m.Error != nil {
			c.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	}
}

// eval runs a JavaScript expression in the page and returns its value as
// JSON (promises awaited).
func (c *cdp) eval(expr string) json.RawMessage {
	c.t.Helper()
	res := c.send("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	json.Unmarshal(res, &r)
	if r.Exception != nil {
		c.t.Fatalf("eval %s: %s", expr, r.Exception.Text)
	}
	return r.Result.Value
}

// waitFor polls a JavaScript condition until it is true.
func (c *cdp) waitFor(cond string) {
	c.t.Helper()
	for range 200 {
		if string(c.eval("!!("+cond+")")) == "true" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("timed out waiting for %s", cond)
}

func (c *cdp) text(sel string) string {
	c.t.Helper()
	var s string
	json.Unmarshal(c.eval(fmt.Sprintf("(document.querySelector(%q)||{}).textContent||''", sel)), &s)
	return s
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine (apt-get install -y chromium; .ci/run installs it): the browser test is skipped")
	return ""
}

// TestBrowser loads the page for the fixture's three sessions in headless
// Chromium and checks what it renders, then previews and performs session
// undos through the page's own buttons.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	srv, root, ws := serve(t)
	pageURL := srv.URL + "/?t=" + token

	toChrome, chromeIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	chromeOut, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The profile lives outside t.TempDir: Chromium's helpers may still be
	// writing to it for a moment after the browser is gone, and a failed
	// cleanup of a scratch directory is not a failure of the page.
	profile, err := os.MkdirTemp("", "stet-review-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "--window-size=1280,1600", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		t.Skipf("chromium does not start here (%v): the browser test is skipped", err)
	}
	toChrome.Close()
	fromChrome.Close()
	defer func() {
		chromeIn.Close()
		killGroup(cmd)
		cmd.Wait()
		removeProfile(t, profile)
	}()
	c := &cdp{t: t, w: chromeIn, r: bufio.NewReader(chromeOut)}
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(c.send("Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(c.send("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	c.session = att.SessionID
	c.send("Page.enable", map[string]any{})
	c.send("Page.navigate", map[string]any{"url": pageURL + "#s=agent-a&diff=1"})
	c.waitFor(`document.body && document.body.dataset.ready === "1"`)

	// Sessions newest first, agent-a's two turns, its files and counts.
	var ids []string
	json.Unmarshal(c.eval(`[...document.querySelectorAll("nav .session")].map(b => b.dataset.id)`), &ids)
	if strings.Join(ids, ",") != "agent-c,agent-b,agent-a" {
		t.Fatalf("sessions %v", ids)
	}
	if n := string(c.eval(`document.querySelectorAll(".turn").length`)); n != "2" {
		t.Errorf("agent-a shows %s turns", n)
	}
	if r := c.text(`.turn[data-turn="1"] .request`); r != "Add a greeting to the app" {
		t.Errorf("turn 1 request %q", r)
	}
	if s := c.text(`.turn[data-turn="1"] .inputs`); !strings.Contains(s, "notes.txt") {
		t.Errorf("turn 1 inputs %q", s)
	}
	for sel, want := range map[string]string{
		`.session-files .file[data-path="src/app.go"] .counts`:    "+2 \u22121",
		`.session-files .file[data-path="src/greet.go"]`:          "created",
		`.session-files .file[data-path="old.txt"]`:               "deleted",
		`.session-files .file[data-path="src/helpers.go"]`:        "moved from src/util.go",
		`.turn[data-turn="2"] .file[data-path="old.txt"] .counts`: "+0 \u22121",
	} {
		if got := c.text(sel); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	// The summary, counts in words, times both ways.
	if got := c.text("#summary"); !strings.Contains(got, "3 sessions") || !strings.Contains(got, "still standing") || !strings.Contains(got, "changes to protected paths") {
		t.Errorf("summary: %q", got)
	}
	if got := c.text(`nav .session[data-id="agent-a"]`); !strings.Contains(got, "2 turns") || !strings.Contains(got, " UTC)") ||
		(!strings.Contains(got, " ago (") && !strings.Contains(got, "just now (")) {
		t.Errorf("agent-a in the list: %q", got)
	}
	if got := c.text(`.refusal[data-kind="not_read"] b`); got != "" && !strings.HasPrefix(got, "changes to files not read first") {
		t.Errorf("not_read group: %q", got)
	}
	if n := string(c.eval(`[...document.querySelectorAll("nav .session, .turn .note")].filter(e => /\b1 (turns|changes|files|refused calls)\b/.test(e.textContent)).length`)); n != "0" {
		t.Errorf("%s counts of one in the plural", n)
	}
	// The first diff page: one file, with its lines; next-file navigation.
	if got := c.text(`#diffs .filediff pre.diff`); !strings.Contains(got, `+	println("hello, world")`) {
		t.Errorf("first diff: %q", got)
	}
	c.eval(`document.querySelector("#next-file").click()`)
	c.waitFor(`document.querySelector("#diffs .filediff") && document.querySelector("#diffs .filediff").dataset.path === "src/greet.go"`)
	if n := string(c.eval(`document.querySelectorAll("#diffs pre.diff span.add").length`)); n != "5" {
		t.Errorf("src/greet.go diff shows %s added lines", n)
	}

	// Keys: j goes to the session's next file and shows its diff, k back.
	key := func(k string) {
		c.eval(fmt.Sprintf(`document.dispatchEvent(new KeyboardEvent("keydown", {key: %q, bubbles: true}))`, k))
	}
	key("j")
	key("j")
	c.waitFor(`document.querySelector(".session-files .file.on") && document.querySelector("#diffs .filediff") && document.querySelector("#diffs .filediff").dataset.path === document.querySelector(".session-files .file.on").dataset.path`)
	second := c.text(`.session-files .file.on a`)
	key("k")
	c.waitFor(fmt.Sprintf(`document.querySelector(".session-files .file.on a").textContent !== %q`, second))
	var order []string
	json.Unmarshal(c.eval(`[...document.querySelectorAll(".session-files .file")].map(e => e.dataset.path)`), &order)
	if len(order) < 2 || second != order[1] || c.text(`.session-files .file.on a`) != order[0] {
		t.Errorf("j j k: second %q, now %q, files %v", second, c.text(`.session-files .file.on a`), order)
	}

	// agent-b: the guards it met, and the undo refused for the human edit.
	c.send("Page.navigate", map[string]any{"url": pageURL + "#s=agent-b&preview=1"})
	c.waitFor(`document.body.dataset.ready === "1" && document.querySelector("#preview")`)
	if got := c.text("#preview"); !strings.Contains(got, "README.md blocks the undo") || !strings.Contains(got, "did not see") {
		t.Errorf("agent-b preview: %q", got)
	}
	for _, kind := range []string{"protected", "not_seen"} {
		if got := c.text(fmt.Sprintf(`.refusal[data-kind=%q]`, kind)); got == "" {
			t.Errorf("no %s refusal shown", kind)
		}
	}
	if got := c.text(`.receipt td:nth-child(6)`); got != "changed since" {
		t.Errorf("agent-b receipt state %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "README.md")); string(b) != reviewfixture.HumanREADME {
		t.Fatalf("README.md changed: %q", b)
	}

	// agent-c: preview, then perform through the page's button.
	c.send("Page.navigate", map[string]any{"url": pageURL + "#s=agent-c&preview=1"})
	c.waitFor(`document.body.dataset.ready === "1" && document.querySelector("#perform")`)
	if n := string(c.eval(`document.querySelectorAll("#preview .step").length`)); n != "2" {
		t.Errorf("agent-c preview shows %s steps", n)
	}
	if got := c.text(`.refusal[data-kind="changed"]`); !strings.Contains(got, "data.txt") {
		t.Errorf("agent-c changed refusal: %q", got)
	}
	c.eval(`document.querySelector("#perform").click()`)
	c.waitFor(`document.querySelector("#result")`)
	var newIDs []string
	json.Unmarshal(c.eval(`[...document.querySelectorAll("#result .new-receipt")].map(e => e.dataset.id)`), &newIDs)
	if len(newIDs) != 2 {
		t.Fatalf("result: %q", c.text("#result"))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.yaml")); string(b) != reviewfixture.Files["config.yaml"] {
		t.Errorf("config.yaml after undo: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "docs/new.md")); !os.IsNotExist(err) {
		t.Errorf("docs/new.md still there: %v", err)
	}
	log, err := ws.Log(stet.ReviewSession, "")
	if err != nil || len(log) != 2 {
		t.Fatalf("review session receipts: %v %d", err, len(log))
	}
	for _, e := range log {
		if e.Undoes == "" || !e.Receipt.Verified || (e.Receipt.ID != newIDs[0] && e.Receipt.ID != newIDs[1]) {
			t.Errorf("new receipt %+v", e)
		}
	}
	if got := c.text(`.receipt td:nth-child(6)`); got != "undone" {
		t.Errorf("agent-c receipt after undo: %q", got)
	}

	var shot struct {
		Data string `json:"data"`
	}
	json.Unmarshal(c.send("Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) == 0 {
		t.Fatalf("screenshot: %v", err)
	}
	name := filepath.Join(t.TempDir(), "review.png")
	if err := os.WriteFile(name, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", name, len(png))
}
