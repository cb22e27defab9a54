package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestAutoFlag: --auto is a bare flag (as before) or takes a delay with =.
func TestAutoFlag(t *testing.T) {
	tests := []struct {
		args    []string
		on      bool
		delay   time.Duration
		wantErr string
	}{
		{nil, false, 0, ""},
		{[]string{"--auto"}, true, defaultAutoDelay, ""},
		{[]string{"--auto=5s"}, true, 5 * time.Second, ""},
		{[]string{"--auto=500ms"}, true, 500 * time.Millisecond, ""},
		{[]string{"--auto=2"}, true, 2 * time.Second, ""},
		{[]string{"--auto=1.5"}, true, 1500 * time.Millisecond, ""},
		{[]string{"--auto=false"}, false, 0, ""},
		{[]string{"--auto", "--plain"}, true, defaultAutoDelay, ""},
		{[]string{"--auto=soon"}, false, 0, "not a delay"},
		{[]string{"--auto=0"}, false, 0, "more than 0"},
		{[]string{"--auto=-1s"}, false, 0, "more than 0"},
		{[]string{"--auto=2h"}, false, 0, "at most 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o := &tourOptions{}
			cmd := &cobra.Command{Use: "tour", RunE: func(*cobra.Command, []string) error { return nil }}
			o.addFlags(cmd)
			err := cmd.ParseFlags(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Auto.on != tt.on || o.Auto.delay != tt.delay {
				t.Errorf("auto = %+v, want on=%v delay=%v", o.Auto, tt.on, tt.delay)
			}
		})
	}
}
