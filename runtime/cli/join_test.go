package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/classroom"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestJoinWrongCodeMessage: a real class host refuses a wrong secret; join says so once, in
// one sentence that says what to do, in English and Chinese, and still wraps the library's
// error.
func TestJoinWrongCodeMessage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := classroom.StartHost(ctx, classroom.HostConfig{Listen: "127.0.0.1:0", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	<-h.Ready()
	code := h.JoinCode()
	wrong := "ZZZZ-ZZ" + code[len("ZZZZ-ZZ"):]
	if strings.HasPrefix(code, "ZZZZ-ZZ") {
		wrong = "YYYY-YY" + code[len("YYYY-YY"):]
	}
	s, err := classroom.Join(ctx, classroom.StudentConfig{Addr: h.Addr().String(), Code: wrong, Name: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("the host never refused the wrong code")
	}
	addr := h.Addr().String()
	for _, tc := range []struct {
		lang       string
		want, once string
	}{
		{"en", "join " + addr + ": wrong join code — copy it again from the join line on the instructor's screen and run kubewalk join once more", "wrong join code"},
		{"zh-CN", "加入 " + addr + "：加入码不对——请照讲师屏幕上的加入命令重新抄一遍，再运行一次 kubewalk join", "加入码不对"},
	} {
		err := joinRefused(i18n.For(tc.lang), addr, s.Err())
		if got := err.Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.lang, got, tc.want)
		}
		if n := strings.Count(err.Error(), tc.once); n != 1 {
			t.Errorf("%s: %q says %q %d times", tc.lang, err, tc.once, n)
		}
		if !errors.Is(err, classroom.ErrWrongCode) {
			t.Errorf("%s: %v does not wrap ErrWrongCode", tc.lang, err)
		}
	}
	// Any other refusal keeps the library's explanation.
	other := joinRefused(i18n.For("en"), addr, classroom.ErrVersion)
	if want := "join " + addr + ": " + classroom.ErrVersion.Error(); other.Error() != want || !errors.Is(other, classroom.ErrVersion) {
		t.Errorf("other refusal: %v, want %q", other, want)
	}
}
