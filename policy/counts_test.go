package policy

import "testing"

func TestCounts(t *testing.T) {
	tests := []struct {
		bb, bl, ab, al int
		want           string
	}{
		{90_000, 2402, 300, 10, "2,402 lines → 10"},
		{10, 1, 30, 3, "1 line → 3"},
		{30, 3, 10, 1, "3 lines → 1"},
		{0, 1, 10, 2, "1 line → 2"},
		{5<<20 + 1, 90_000, 3, 1, "5.0 MB → 1 line"},
		{5<<20 + 1, 90_000, 30, 4, "5.0 MB → 4 lines"},
		{5 << 20, 1_234_567, 30, 4, "1,234,567 lines → 4"}, // exactly 5 MiB still counts lines
		{100, 2, 6 << 20, 7, "2 lines → 6.0 MB"},
		{12 << 20, 7, 13<<20 + 1<<19, 9, "12.0 MB → 13.5 MB"},
		{1234 << 20, 7, 10, 1_000, "1,234.0 MB → 1,000 lines"},
	}
	for _, tt := range tests {
		if got := Counts(tt.bb, tt.bl, tt.ab, tt.al); got != tt.want {
			t.Errorf("Counts(%d, %d, %d, %d) = %q, want %q", tt.bb, tt.bl, tt.ab, tt.al, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		bytes, lines int
		want         string
	}{
		{5, 1, "1 line"},
		{0, 0, "0 lines"},
		{999, 999, "999 lines"},
		{1000, 1000, "1,000 lines"},
		{90_000, 2402, "2,402 lines"},
		{5<<20 + 1, 3, "5.0 MB"},
		{(5<<20)*2 - 1, 3, "10.0 MB"},
	}
	for _, tt := range tests {
		if got := Count(tt.bytes, tt.lines); got != tt.want {
			t.Errorf("Count(%d, %d) = %q, want %q", tt.bytes, tt.lines, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 123456: "123,456",
		1234567: "1,234,567", -1234567: "-1,234,567", -999: "-999",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
