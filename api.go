package stet

import (
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/tools"
)

// Argument and result types of the tools, shared with the tools package
// (which owns their JSON Schemas) so every surface speaks the same shapes.
type (
	ReadArgs        = tools.ReadArgs
	InfoArgs        = tools.InfoArgs
	RootsArgs       = tools.RootsArgs
	EditArgs        = tools.EditArgs
	EditOp          = tools.EditOp
	WriteArgs       = tools.WriteArgs
	PatchArgs       = tools.PatchArgs
	ListArgs        = tools.ListArgs
	FindArgs        = tools.FindArgs
	GrepArgs        = tools.GrepArgs
	MkdirArgs       = tools.MkdirArgs
	MoveArgs        = tools.MoveArgs
	DeleteArgs      = tools.DeleteArgs
	UndoArgs        = tools.UndoArgs
	ReadResult      = tools.ReadResult
	ReadFilesResult = tools.ReadFilesResult
	InfoResult      = tools.InfoResult
	RootsResult     = tools.RootsResult
	Root            = tools.Root
	MutationResult  = tools.MutationResult
	PatchResult     = tools.PatchResult
	ListResult      = tools.ListResult
	Entry           = tools.Entry
	FindResult      = tools.FindResult
	GrepResult      = tools.GrepResult
	GrepMatch       = tools.GrepMatch
	GrepCountRow    = tools.GrepCountRow
	MkdirResult     = tools.MkdirResult
	Receipt         = receipt.Receipt
)

// PersonaLine is the one line every agent on stet should be told (the MCP
// server sends it in its instructions).
const PersonaLine = tools.Persona

// Output modes of grep (GrepArgs.OutputMode).
const (
	GrepContent          = tools.GrepContent
	GrepFilesWithMatches = tools.GrepFilesWithMatches
	GrepCount            = tools.GrepCount
)
