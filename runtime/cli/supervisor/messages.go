package supervisor

import "bytes"

// Messages are what the supervisor says, in one language. They are runtime/i18n's strings of
// the same names (CLIInterruptedShort, CLICrashed, …), copied because runtime/i18n imports
// packages that Go initialises late (see the package doc); TestMessagesAreI18n holds the copies
// equal to runtime/i18n's, and the language is chosen as runtime/cli chooses it
// (TestDetectLangAsCLI).
type Messages struct {
	InterruptedShort string
	CrashedNoLog     string // %s: how
	Crashed          string // %s how, %s log path
	CrashedTrace     string // %s: the panic line
	CouldNotRemove   string // %s: the paths
	ExitStatus       string // %d
	Signal           string // %s
}

var english = Messages{
	InterruptedShort: "interrupted",
	CrashedNoLog:     "kubewalk crashed (%s) before it opened its log; its error output, if any, is above",
	Crashed:          "kubewalk crashed (%s); the log is at %s",
	CrashedTrace:     "\n  %s\n  (the stack trace is at the end of the log)",
	CouldNotRemove:   "\n  could not remove: %s",
	ExitStatus:       "exit status %d",
	Signal:           "signal: %s",
}

var simplifiedChinese = Messages{
	InterruptedShort: "已中断",
	CrashedNoLog:     "kubewalk 在打开日志之前就崩溃了（%s）；如有错误输出，见上方",
	Crashed:          "kubewalk 崩溃了（%[1]s）；日志位于 %[2]s",
	CrashedTrace:     "\n  %s\n  （调用栈在日志末尾）",
	CouldNotRemove:   "\n  无法删除：%s",
	ExitStatus:       "退出状态 %d",
	Signal:           "信号：%s",
}

// MessagesFor returns the messages in lang ("en" or "zh-CN"; English for anything else).
func MessagesFor(lang string) Messages {
	if lang == "zh-CN" {
		return simplifiedChinese
	}
	return english
}

// DetectLang is the language of a run with these arguments in this environment, as
// runtime/cli's msgs(langArg(args)) picks it (lessons.DetectLang): a valid --lang, else the
// locale (LC_ALL, LC_MESSAGES, LANG), else LANGUAGE unless the locale is C; "en" or "zh-CN".
func DetectLang(args []string, getenv func(string) string) string {
	if flag := langArg(args); flag != "" {
		if lang, ok := normalizeLang(flag); ok {
			return lang
		}
	}
	locale := ""
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if locale = getenv(k); locale != "" {
			break
		}
	}
	if locale != "" && locale != "C" && locale != "POSIX" {
		for _, l := range bytes.Split([]byte(getenv("LANGUAGE")), []byte(":")) {
			if lang, ok := normalizeLang(string(l)); ok {
				return lang
			}
		}
	}
	lang, _ := normalizeLang(locale)
	return lang
}

// langArg is the value of a --lang flag in args ("" without one), as runtime/cli's langArg.
func langArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--lang" && i+1 < len(args):
			return args[i+1]
		case len(a) >= len("--lang=") && a[:len("--lang=")] == "--lang=":
			return a[len("--lang="):]
		}
	}
	return ""
}

// normalizeLang is lessons.NormalizeLang: the kubewalk language of a language tag or locale.
func normalizeLang(s string) (string, bool) {
	b := []byte(s)
	b, _, _ = bytes.Cut(b, []byte(".")) // encoding: zh_CN.UTF-8
	b, _, _ = bytes.Cut(b, []byte("@")) // modifier: de_DE@euro
	b = bytes.ToLower(bytes.ReplaceAll(bytes.TrimSpace(b), []byte("_"), []byte("-")))
	switch string(b) {
	case "zh", "zh-cn", "zh-sg", "zh-hans", "zh-hans-cn", "zh-hans-sg":
		return "zh-CN", true
	case "en", "c", "posix":
		return "en", true
	}
	if bytes.HasPrefix(b, []byte("en-")) {
		return "en", true
	}
	return "en", false
}
