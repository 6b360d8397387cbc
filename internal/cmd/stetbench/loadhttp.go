package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// httpClient is one MCP client of a streamable HTTP server: its own MCP
// session (Mcp-Session-Id from initialize) and its own connection pool,
// one POST per request, as an agent's SDK sends them. It does not open the
// optional GET stream: stet sends nothing a tool call needs on it.
type httpClient struct {
	url, token string
	hc         *http.Client
	session    string
	nextID     int64
	timeout    time.Duration
}

func newHTTPClient(url, token string, timeout time.Duration) *httpClient {
	tr := &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true}
	return &httpClient{url: url, token: token, hc: &http.Client{Transport: tr}, timeout: timeout}
}

// post sends one JSON-RPC message and returns the response with id want
// (none for a notification) and the time from the start of the request to
// the end of the response's body.
func (c *httpClient) post(ctx context.Context, body []byte, want int64) (*rpcMessage, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", protocolVersion)
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("http: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("http: reading the response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, 0, fmt.Errorf("http: status %d: %s", resp.StatusCode, head(raw))
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && c.session == "" {
		c.session = id
	}
	if want == 0 {
		return nil, d, nil
	}
	m, err := responseIn(resp.Header.Get("Content-Type"), raw, want)
	return m, d, err
}

// responseIn finds the response with id want in a body: one JSON message,
// or an SSE stream of them (data lines of "message" events).
func responseIn(contentType string, body []byte, want int64) (*rpcMessage, error) {
	id := strconv.FormatInt(want, 10)
	if !strings.HasPrefix(contentType, "text/event-stream") {
		m, err := parseMessage(body)
		if err != nil {
			return nil, err
		}
		if string(m.ID) != id {
			return nil, fmt.Errorf("response has id %s, not %s", m.ID, id)
		}
		return m, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	var data []byte
	flush := func() (*rpcMessage, error) {
		defer func() { data = data[:0] }()
		if len(data) == 0 {
			return nil, nil
		}
		m, err := parseMessage(data)
		if err != nil || m.Method != "" || string(m.ID) != id {
			return nil, err
		}
		return m, nil
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if m, err := flush(); m != nil || err != nil {
				return m, err
			}
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(rest, []byte(" "))...)
		}
	}
	if m, err := flush(); m != nil || err != nil {
		return m, err
	}
	return nil, fmt.Errorf("no response with id %s in an event stream of %d bytes", id, len(body))
}

// request sends a request and returns its response.
func (c *httpClient) request(ctx context.Context, method string, params any) (*rpcMessage, time.Duration, error) {
	c.nextID++
	body, err := encodeRequest(c.nextID, method, params)
	if err != nil {
		return nil, 0, err
	}
	m, d, err := c.post(ctx, body, c.nextID)
	if err == nil && m.Error != nil {
		err = fmt.Errorf("%s: %w", method, m.Error)
	}
	return m, d, err
}

// initialize opens the client's MCP session.
func (c *httpClient) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "stetbench-load", "version": "0"},
	}
	if _, _, err := c.request(ctx, "initialize", params); err != nil {
		return err
	}
	if c.session == "" {
		return errors.New("initialize: the server set no Mcp-Session-Id")
	}
	body, err := encodeRequest(0, "notifications/initialized", nil)
	if err != nil {
		return err
	}
	_, _, err = c.post(ctx, body, 0)
	return err
}

// close ends the MCP session (DELETE) and the client's connections.
func (c *httpClient) close() {
	if c.session != "" {
		req, err := http.NewRequest(http.MethodDelete, c.url, nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Mcp-Session-Id", c.session)
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	c.hc.CloseIdleConnections()
}

// callOutcome is one tools/call as the load benchmark sees it.
type callOutcome struct {
	d          time.Duration
	structured json.RawMessage
	refused    string // the refusal's kind, "" when the call landed
	text       string
}

// call calls a tool. A refusal is an outcome, not an error; an error is a
// failure of the transport or the protocol, or a tool error.
func (c *httpClient) call(ctx context.Context, tool string, args any) (callOutcome, error) {
	m, d, err := c.request(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return callOutcome{}, fmt.Errorf("%s: %w", tool, err)
	}
	var r toolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return callOutcome{}, fmt.Errorf("%s: bad tools/call result: %w", tool, err)
	}
	out := callOutcome{d: d, structured: r.Structured, text: r.text()}
	var k struct {
		Refused string `json:"refused"`
	}
	if len(r.Structured) > 0 && json.Unmarshal(r.Structured, &k) == nil && k.Refused != "" {
		out.refused = k.Refused
		return out, nil
	}
	if r.IsError {
		return out, fmt.Errorf("%s: tool error: %s", tool, head([]byte(out.text)))
	}
	return out, nil
}
