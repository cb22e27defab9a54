package sshclass

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kubewalk/kubewalk/lessons"
)

// messages is what the class server itself says to a student, outside the tour.
type messages struct {
	NoCommand    string // %s: the command the student asked for
	NeedTerminal string
	BadUser      string // %q: the user name
	NameTaken    string // %q: the user name
	Full         string // %d: the limit
	ClassEnded   string
	Idle         string // %s: the timeout
	Failed       string
	Clamped      string // %d×%d the client's window, %d×%d the most a tour is drawn in
	// The goodbye screen when the class stops (goodbye.go).
	GoodbyeTitle string
	GoodbyeEnded string
	GoodbyeSaved string // %s: the student's user name
	GoodbyeClose string // %d: seconds left
}

var english = messages{
	NoCommand: "kubewalk class: this server runs the kubewalk tour only; it runs no command (%s).\n" +
		"Connect without one, with a terminal:  ssh -t USER@HOST",
	NeedTerminal: "kubewalk class: the tour needs a terminal; connect with  ssh -t USER@HOST",
	BadUser:      "kubewalk class: user name %q: use 1–32 letters or digits (of any script), '.', '_' or '-', starting with a letter, digit or '_' (ssh NAME@HOST); your progress is kept under it",
	NameTaken: "kubewalk class: the name %q belongs to another student's key; connect under a name of your own (ssh NAME@HOST),\n" +
		"or, if it is yours, ask the instructor to release it",
	Full:       "kubewalk class: the class is full (%d sessions running); ask the instructor, or try again in a moment",
	ClassEnded: "kubewalk class: the instructor stopped the class server; your progress is saved",
	Idle:       "kubewalk class: closed after %s without a key press; your progress is saved, connect again to go on",
	Failed:     "kubewalk class: could not start your tour; tell the instructor (the class server's output says why)",
	Clamped:    "kubewalk class: your terminal is %d×%d; the tour is drawn in at most %d×%d of it",

	GoodbyeTitle: "kubewalk class",
	GoodbyeEnded: "The class has ended: the instructor stopped the class server. Thank you for coming!",
	GoodbyeSaved: "Your progress is saved under the name %[1]s: connect again as %[1]s to go on where you left off.",
	GoodbyeClose: "Press any key, or the connection closes in %d s.",
}

var chinese = messages{
	NoCommand:    "kubewalk class：此服务器只运行 kubewalk 导览，不执行任何命令（%s）。\n请不带命令、带终端连接：  ssh -t 用户名@主机",
	NeedTerminal: "kubewalk class：导览需要终端；请用  ssh -t 用户名@主机  连接",
	BadUser:      "kubewalk class：用户名 %q 不可用：请用 1–32 个字母或数字（任何文字均可）、'.'、'_' 或 '-'，以字母、数字或 '_' 开头（ssh 用户名@主机）；学习进度按用户名保存",
	NameTaken:    "kubewalk class：用户名 %q 已属于另一位学员的密钥；请用你自己的名字连接（ssh 名字@主机），\n如果这个名字是你的，请讲师释放它",
	Full:         "kubewalk class：课堂已满（正在运行 %d 个会话）；请联系讲师，或稍后再试",
	ClassEnded:   "kubewalk class：讲师已停止课堂服务器；你的进度已保存",
	Idle:         "kubewalk class：%s 内没有按键，会话已关闭；进度已保存，重新连接即可继续",
	Failed:       "kubewalk class：无法启动你的导览；请告诉讲师（课堂服务器的输出里有原因）",
	Clamped:      "kubewalk class：你的终端是 %d×%d；导览最多只占用其中的 %d×%d",

	GoodbyeTitle: "kubewalk class",
	GoodbyeEnded: "课堂已结束：讲师已停止课堂服务器。感谢参加！",
	GoodbyeSaved: "你的进度保存在名字 %[1]s 下：以 %[1]s 重新连接，就能从上次停下的地方继续。",
	GoodbyeClose: "按任意键，或者连接将在 %d 秒后关闭。",
}

// messagesFor picks the language from the variables the student's ssh client sent (LC_ALL,
// LC_MESSAGES, LANG), as the tour itself does.
func messagesFor(environ []string) *messages {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if lessons.DetectLang("", func(k string) string { return env[k] }) == "zh-CN" {
		return &chinese
	}
	return &english
}

// shorten returns s cut to at most n runes, with "…" and its length in bytes when it was cut:
// what a client sends (a user name, a command) is echoed in messages, and a 100 KB one must
// not be echoed whole.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := []rune(s)[:n]
	return fmt.Sprintf("%s… (%d bytes)", string(cut), len(s))
}
