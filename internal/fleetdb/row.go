package fleetdb

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

// Row is one journal line as the records table holds it: the line itself
// (nil when redacted), its place in the chain, and the columns the review
// queries, read from the line by RowOf.
type Row struct {
	Seq      int64
	Prev     string
	Hash     string
	Line     []byte // nil: redacted (the line is about a deny-read file)
	Time     time.Time
	Type     string
	Session  string
	Path     string
	From     string // a move's source
	Receipt  string // a receipt's id; an undo record's receipt taken back
	By       string // an undo record's undo receipt; a receipt's receipt it undoes
	Tool     string
	Kind     string // a refusal's kind
	Verified bool
	Carried  bool
}

// RowOf reads the columns of a journal line. The line's bytes are kept
// (copied); Redact drops them.
func RowOf(l journal.Line) (Row, error) {
	var r journal.Record
	if err := json.Unmarshal(l.Bytes, &r); err != nil {
		return Row{}, fmt.Errorf("fleetdb: journal line %d: %w", l.Seq, err)
	}
	row := Row{Seq: l.Seq, Prev: l.Prev, Hash: l.Hash, Line: append([]byte(nil), l.Bytes...),
		Time: r.Time, Type: r.Type, Session: r.Session, Path: r.Path}
	if err := row.payload(r); err != nil {
		return Row{}, err
	}
	return row, nil
}

// payload fills the columns a record's type carries in its data.
func (row *Row) payload(r journal.Record) error {
	switch r.Type {
	case history.TypeReceipt:
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return err
		}
		row.Receipt, row.Tool, row.Verified, row.By, row.From = d.Receipt.ID, d.Receipt.Tool, d.Receipt.Verified, d.Undoes, d.FromKey
	case history.TypeUndo:
		d, err := history.Decode[history.Undo](r)
		if err != nil {
			return err
		}
		row.Receipt, row.By = d.Receipt, d.By
	case history.TypeRefusal:
		d, err := history.Decode[history.Refusal](r)
		if err != nil {
			return err
		}
		row.Kind, row.Tool = d.Kind, d.Tool
	}
	return nil
}

// Redact drops the line's bytes, keeping its place in the chain and its
// columns: what the database holds of a line about a deny-read file.
func (row *Row) Redact() { row.Line = nil }

// Paths returns every workspace path a journal line is about: its record's
// path, a move's source, and each file an intent names. Ship checks each
// against deny-read.
func Paths(line []byte) ([]string, error) {
	var r journal.Record
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	out := []string{}
	add := func(p string) {
		if p != "" {
			out = append(out, p)
		}
	}
	add(r.Path)
	switch r.Type {
	case history.TypeReceipt:
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return nil, err
		}
		add(d.FromKey)
		add(d.Receipt.Path)
		add(d.Receipt.From)
	case history.TypeIntent:
		d, err := history.Decode[history.Intent](r)
		if err != nil {
			return nil, err
		}
		for _, f := range d.Files {
			add(f.Key)
			add(f.Data.FromKey)
			add(f.Data.Receipt.Path)
			add(f.Data.Receipt.From)
		}
	case history.TypeClientIntent:
		d, err := history.Decode[history.ClientIntent](r)
		if err != nil {
			return nil, err
		}
		for _, f := range d.Files {
			add(f.Key)
			add(f.Data.FromKey)
			add(f.Data.Receipt.Path)
			add(f.Data.Receipt.From)
		}
	case history.TypeSnapshot:
		d, err := history.Decode[history.Snapshot](r)
		if err != nil {
			return nil, err
		}
		for p := range d.Files {
			add(p)
		}
		for p := range d.Removed {
			add(p)
		}
		out = append(out, d.Created...)
		out = append(out, d.Dirs...)
		for _, c := range d.Clients {
			for _, f := range c.Files {
				add(f.Key)
				add(f.Data.Receipt.Path)
			}
		}
	case history.TypeRefusal:
		d, err := history.Decode[history.Refusal](r)
		if err != nil {
			return nil, err
		}
		add(d.Path)
	}
	return out, nil
}
