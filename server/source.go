package server

import "embed"

// SourceFS is kubewalk's own server source, embedded so the lessons can resolve their anchors
// ("(*Server).Authn", "admit.(*CreatedBy).Admit") and show the code of the running binary
// without a source checkout, and so the walkthrough's search covers it (the REST strategies
// are under registry/, the request decorators under observe/, the generated clientset,
// listers and informers under generated/). The package's files are at the root and
// server/admit's under admit/.
// Test files are embedded too (embed patterns cannot exclude them); the lessons resolver and
// the search skip them.
//
//go:embed *.go admit/*.go apis/*.go apis/learn generated observe/*.go rbac/*.go registry
var SourceFS embed.FS
