package content

import _ "embed"

// Glossary is glossary.md: the terms the lessons and screens use, English and Simplified
// Chinese, as a Markdown table (runtime/i18n parses it).
//
//go:embed glossary.md
var Glossary []byte
