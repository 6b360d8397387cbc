package policy

import (
	"errors"
	"testing"
)

func TestParseEffects(t *testing.T) {
	for in, want := range map[string]Effects{
		"read-only": ReadOnly, "workspace-write": WorkspaceWrite, "": WorkspaceWrite,
	} {
		got, err := ParseEffects(in)
		if err != nil || got != want {
			t.Errorf("ParseEffects(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"readonly", "write", "workspace_write", "ro", "Read-Only", " read-only"} {
		if _, err := ParseEffects(in); !errors.Is(err, ErrUnknownMode) {
			t.Errorf("ParseEffects(%q) error = %v, want ErrUnknownMode", in, err)
		}
	}
	if ReadOnly.Writable() || !WorkspaceWrite.Writable() {
		t.Error("Writable: read-only must refuse writes and workspace-write allow them")
	}
}

func TestParseBinding(t *testing.T) {
	for in, want := range map[string]Binding{
		"seen": BindSeen, "read": BindRead, "full": BindFull, "": BindSeen,
	} {
		got, err := ParseBinding(in)
		if err != nil || got != want {
			t.Errorf("ParseBinding(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"whole", "seen,read", "none", "FULL", "seen "} {
		if _, err := ParseBinding(in); !errors.Is(err, ErrUnknownMode) {
			t.Errorf("ParseBinding(%q) error = %v, want ErrUnknownMode", in, err)
		}
	}
}
