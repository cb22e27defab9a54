package i18n

// Strings is every string kubewalk shows a learner, in one language; english() has the English
// text of each field, which is also what the field means. Format verbs are noted by the
// English text; translations keep the same arguments and may reorder them with %[n]s.
type Strings struct {
	lang string

	// Panes, views and their titles.
	PaneSource, PaneUpstream, PaneState, PaneLesson, PaneKubectl string
	PaneRequests, PaneLane, PaneRequest, PaneStageSource         string
	PaneRequestsMade, PaneValue, PaneGlossary                    string
	PaneEtcdTree                                                 string // %s: the key prefix

	// The screen too small for the layout.
	TooSmall, TooSmallQuit string

	// Keys (bubbles key.Binding help text). The key names themselves are not translated.
	KeyNext, KeyNextPhase, KeyToEnd, KeyPhase, KeyBack, KeyForward, KeyLive             string
	KeyFocusNext, KeyFocusPrev, KeyServed, KeyUp, KeyDown, KeyPageUp, KeyPageDown       string
	KeyTop, KeyBottom, KeyToggle, KeyNextChange, KeyPrevChange, KeyExpandAll            string
	KeyCollapseAll, KeyRaw, KeyUpstream, KeyWrap, KeySearch, KeyMatchNext, KeyMatchPrev string
	KeyOpenMatch, KeyCommand, KeyFilter, KeyLoopback, KeyStageSource, KeyStageEtcd      string
	KeyHeldStep, KeyHeldRun, KeyHeldAbort, KeyHelp, KeyQuit                             string
	KeyZoom, BarZoom, BarUnzoom                                                         string
	// Keys the help bar names only in one situation.
	KeyAnyKey, KeyAnyOtherKey                                                     string
	BarSearch, BarCancel, BarScroll, BarCloseHelp, BarBegin, BarClose, BarFilter  string
	BarClearSearch, BarBackToStep, BarEarlierLater, BarLive, BarNext, BarBack     string
	BarCommand, BarStepHeld, BarRunToEnd, BarFailIt, BarSelect, BarLane, BarStage string
	BarStop, BarOpenLane, BarMove, BarOpenClose, HelpUpDown, HelpPageUpDown       string
	HelpTopBottom, HelpLaneStage                                                  string

	// The help overlay (?).
	HelpLiveServer, HelpReviewing, HelpPanes, HelpSource, HelpState, HelpRequestsView string
	HelpParaSpace, HelpParaPhases, HelpParaSearch, HelpParaState, HelpParaServed      string
	HelpParaCommand, HelpTitle                                                        string
	HelpTitleScroll                                                                   string // %d: percent shown

	// The welcome screen.
	WelcomeTitle, WelcomeIntro, WelcomePaused, WelcomeKeySpace, WelcomeKeyBack string
	WelcomeKeyHelp, WelcomeBegin                                               string

	// The header: checkpoint line and status line.
	StartingServer                                   string
	CheckpointOf                                     string // %d/%d: position among all checkpoints
	WhereFailed                                      string
	WhereServing                                     string
	WhereRunningTo                                   string // %s: a target
	WherePausedAt                                    string // %s: a checkpoint ID
	StatusReviewing                                  string // %d/%d step, %s checkpoint ID
	StatusReviewWhere                                string // %s: a Where* string
	StatusReviewNote                                 string
	StatusFailed                                     string
	StatusQuits                                      string
	StatusServing                                    string
	StatusServingAt                                  string // %s: the address
	StatusBackToLesson, StatusBackToLessonShort      string
	StatusAllDone, StatusAllDoneShort                string
	StatusAllDoneShortest                            string
	StatusRunningTo                                  string // %s: a target
	StatusPausedAt                                   string // %s: a checkpoint ID
	StatusPausedNote                                 string
	StatusAutoNote                                   string // %s: the pause at each checkpoint
	StatusAutoRunning                                string
	StatusStarting                                   string
	StatusHeld                                       string // %d: held requests
	TargetNextCheckpoint, TargetNextPhase, TargetEnd string
	TargetPhase                                      string // %s: a phase name

	// One-off notes in the status line.
	NoteResumeFailed       string // %s: the error
	NoteStartupFailed      string
	NoteStartupFinished    string
	NoteStillRunning       string
	NoteAutoOff            string
	NoteStillStarting      string
	NoteKubectlPanelLater  string
	NoteRowWhole           string
	NoteNoChange           string
	NoteNoStopInPhase      string // %s: a phase
	NoteKubectlRefused     string
	NoteKubectlRefusedHere string
	NoteLoopbackShown      string
	NoteLoopbackHidden     string
	NoteStageNoCode        string
	NoteStageNoEtcd        string
	NoteStoppingKubectl    string
	NoteKubectlBeside      string // %s: the command line that goes on beside
	NoteKubectlBesideEnded string // %s: the command line
	NoteNoLane             string
	NoteEtcdNotWired       string
	NoteKeyNotListed       string
	NoteHeldWhileTyping    string // %s: the stage
	NoteHeldJump           string // %s: the stage
	NoteBreakNotWired      string
	NoteNothingHeld        string
	NoteCleared            string
	NoteBreakRemoved       string // %s: the spec
	NoteBreakSet           string // %s: the spec (twice)
	NoteStepped            string
	NoteLetGo              string
	NoteAborted            string
	NoteStepFailed         string // %s: the error
	NoteLetGoFailed        string // %s: the error
	NoteAbortFailed        string // %s: the error

	// The : command line.
	CmdRequests, CmdKubectl, CmdEtcd, CmdBreak, CmdUnbreak, CmdClear, CmdLesson string
	CmdGlossary, CmdHelp, CmdQuit                                               string
	// :extension, the aggregated API server's control (runtime/tui/extension).
	CmdExtension, SuggestExtensionStop, SuggestExtensionStart                 string
	CmdExtensionArg                                                           string // %q: the argument
	ExtensionNotServing, ExtensionAlreadyStopped                              string
	ExtensionAlreadyRunning                                                   string // %s: its address
	ExtensionStopping, ExtensionStarting                                      string
	ExtensionStopFailed, ExtensionStartFailed                                 string // %v: the error
	ExtensionStopped                                                          string // %s APIService, %s reason
	ExtensionStoppedWaiting                                                   string // %s APIService, %v error
	ExtensionStarted                                                          string // %s address, %s APIService
	ExtensionStartedWaiting                                                   string // %s address, %s APIService, %v error
	ExtensionStateRunning                                                     string // %s: its address
	ExtensionStateStopped                                                     string
	ExtensionStatus                                                           string // %s state, %s APIService, %s status, %s reason
	ExtensionStatusErr                                                        string // %s state, %v error
	CmdUnknown                                                                string // %q: the name
	CmdNoArgs                                                                 string // %s: the command
	CmdRequestsArg, CmdUnbreakWhich                                           string
	CmdColumn                                                                 string // %d: a column, %s: the problem
	CmdKubectlRunning                                                         string // %s: the command line
	CmdKubectlBesideBusy                                                      string // %s: the command line beside
	CmdEtcdKey                                                                string // %s: the prefix, /registry/
	SuggestEtcdPrefix, SuggestEtcdUnder, SuggestEtcdKey, SuggestEtcdNotListed string
	SuggestTitle, SuggestErrorTitle, SuggestCommandsTitle                     string
	SuggestMore                                                               string // %d: how many
	PromptHint                                                                string
	SuggestShowAll, SuggestBreakpoint, SuggestContext, SuggestKind            string
	SuggestResource, SuggestVerb, SuggestOnlyUser, SuggestOnlyVerb            string
	SuggestOnlyResource, SuggestCanI, SuggestWhoami                           string
	VerbGet, VerbDescribe, VerbCreate, VerbApply, VerbDelete, VerbAuth        string
	VerbAPIResources, VerbAPIVersions, VerbLabel, VerbAnnotate, VerbPatch     string
	VerbExplain, VerbVersion, VerbConfig                                      string
	FlagContext, FlagWatch, FlagOutput, FlagNamespace, FlagAllNamespaces      string
	FlagAs, FlagFile, FlagDryRun                                              string
	StageWhenAuthn, StageWhenAuthz, StageWhenAdmission, StageWhenStorage      string
	CommandsIntro, CommandsRequests, CommandsBreak, CommandsTitle             string
	BreakListIntro, BreakListNone, BreakListTitle                             string
	BreakListHeld                                                             string // %d: held requests

	// The after-serve views' header line.
	ViewRequestsTitle string
	ViewBreakpoints   string // %d: breakpoints set
	ViewKubectlTitle  string
	ViewKubectlHint   string
	ViewEtcdTitle     string // %s: the key prefix
	ViewEtcdLive      string
	ViewGlossaryTitle string
	ViewGlossaryHint  string
	PathLead          string
	PathHeldAt        string // %s: a stage

	// The Requests view.
	RqSelectStage, RqSelectRequest, RqLaneLater string
	RqStageOf                                   string // %d/%d
	RqAuditID                                   string // %s: the ID
	RqHeldTitle                                 string // %s: the rest of the title
	RqUser, RqGroups, RqActingAs, RqVerb        string
	RqResource, RqNamespace, RqName, RqPath     string
	RqResponse, RqReceived, RqAgent, RqAuditCol string
	RqChain                                     string // the servers of the delegation chain a request went through
	RqLoopbackUser                              string
	RqImpersonatedBy                            string // %s user, %s impersonator
	RqLongRunning                               string
	RqHeldAt                                    string // %s stage, %s time, %s spec
	RqHeldKeys                                  string
	RqBodyNone, RqBodyDecoded, RqInFlight       string
	RqAfter                                     string // %s code, %s duration
	RqBytes                                     string // %s code, %d bytes
	RqShown                                     string // %d
	RqSinceClear, RqLoopbackHidden              string
	RqLoopbackShown                             string
	RqDropped                                   string // %d
	RqHeldCount                                 string // %d
	ColTime, ColUser, ColVerb, ColResource      string
	ColCode, ColLatency, CodeHeld               string
	RqNotWired, RqReading, RqNoneYet            string
	RqNotServing                                string
	RqNoMatch                                   string // %q: the filter
	RqNoneSinceClear                            string
	RqFilterTyping                              string
	RqFilterMatches                             string // %d
	RqStageTitle                                string // %s: the stage

	// Request lanes.
	LaneMutating, LaneValidating                                     string // %s: the plugin
	OutcomeOK, OutcomeAllowed, OutcomeDenied, OutcomeNoOpinion       string
	OutcomeChanged, OutcomeNoChange, OutcomeRefused, OutcomeFailed   string
	OutcomeHeld, OutcomeAborted, OutcomeCache, OutcomeEtcd           string
	OutcomeSkipped, MarkHeld, MarkStopped                            string
	OutcomeDelegated, OutcomeServed, OutcomeProxied, OutcomeNotFound string
	LaneNoStage, LaneInFlight, LaneStoppedHere, LaneHeldHere         string
	LanePatch                                                        string
	LaneCode, LaneUpstream                                           string // %s
	LaneOpens                                                        string
	LaneEtcdKey                                                      string // %s: the key

	// What a request lane says about its stages (runtime/tracing assembles them: a stage's
	// detail, its fields' labels and values). Users, keys, plugin and authorizer names, and
	// the errors and reasons the server wrote go in as arguments, verbatim.
	LaneListSep, LaneNamed                               string // LaneNamed: %s name, %s what it said
	LaneUserGroups                                       string // %s user, %s groups
	LaneAuthnNone, LaneAuthnErr, LaneAuthnLoopback       string // %s: the error, the user
	LaneAuthnAccepted, LaneAuthnRefused                  string // %s: the user, the error
	LaneAuthnNoCert, LaneAuthnNoToken, LaneAuthnNoAnon   string
	LaneAuthnNoAnswer                                    string
	LaneAccessCheck                                      string // %s verb, %s resource, %s name, %s decision
	LaneImpTime, LaneImpDenied, LaneImpChecked           string
	LaneImpActingAs                                      string // %s real user, %s impersonated user
	LaneImpSkipped                                       string
	LaneFlowTooMany, LaneFlowPF, LaneFlowLongRunning     string
	LaneFlowAdmitted, LaneFlowNote                       string
	LaneAllowed, LaneDenied, LaneNoOpinion               string
	LaneAllowedBy                                        string // %s: the authorizer's reason, which says "allowed"
	LaneAllowedReason, LaneDeniedReason                  string // %s: the authorizer's reason
	LaneNoOpinionReason                                  string // %s: the authorizer's reason
	LaneDecisionErr                                      string // %s decision, %s error
	LaneForbidden                                        string // %s: why
	LaneAuthzUnion                                       string
	LaneHeldStepping                                     string // %s: since when
	LaneHeldBreakpoint                                   string // %s breakpoint, %s since when
	LaneHoldStepping                                     string // %s how long, %s then what
	LaneHoldBreakpoint                                   string // %s breakpoint, %s how long, %s then what
	LaneHoldStepped, LaneHoldContinued, LaneHoldFailed   string
	LaneHoldTimeout, LaneHoldReleased, LaneHoldGone      string
	LaneAbortedAt                                        string // %s: the stage
	LaneHeldBeforeAdmission, LaneNoChange, LaneChanged   string
	LaneFieldErrors1                                     string // %s: the strategy
	LaneFieldErrors                                      string // %d errors, %s strategy
	LaneStrategyValid, LaneValid                         string // %s: the strategy
	LaneGenericRefused                                   string // %s: the function
	LaneStorageRev, LaneStorageAskedRV, LaneStorageWhere string // %s
	LaneDetailRev, LaneDetailWhere                       string // %s
	LaneFromCache, LaneNotFound, LaneStreaming           string
	LaneFieldTime, LaneFieldNote, LaneFieldChain         string
	LaneFieldBreakpoint, LaneFieldOperation              string
	LaneFieldStrategy, LaneFieldThen, LaneFieldKey       string
	LaneFieldRevision, LaneFieldMessage                  string
	LaneFieldAskedInHandler                              string
	LaneUnauthenticated, LaneStoppedMark                 string
	LaneAs                                               string // %s real user, %s impersonated user
	LanePatchLine                                        string // %s: the patch
	// The delegation chain in a lane: which server answered, the proxy hop.
	LaneFieldServer, LaneFieldFilters, LaneFieldPath  string
	LaneFieldAPIService, LaneFieldService             string
	LaneFieldAvailable, LaneFieldAddress, LaneFieldAs string
	LaneChainFilters, LaneChainReached                string
	LaneChainNotReady                                 string
	LaneChainNotFound                                 string // %d code, %s path
	LaneChainHanded                                   string // %s: the next server
	LaneChainProxied                                  string // %s APIService, %s service
	LaneChainServed                                   string // %s: the server
	LaneChainServedAgg                                string
	LaneProxyAs                                       string // %s: the user
	LaneProxyTo                                       string // %s address, %s status
	LaneProxyErr                                      string // %s address, %s error
	LaneProxyTime, LaneProxyNoHop                     string // LaneProxyNoHop: %d code, %s APIService

	// The kubectl view.
	KubectlShuttingDown, KubectlIntro, KubectlIntroWatch string
	KubectlBeside                                        string // %s: the command line that goes on beside
	KubectlBesideEarlier                                 string // %d: lines not shown
	KubectlStarting                                      string // %w: the error
	KubectlAs                                            string // %s: the context
	KubectlDropped                                       string // %d
	KubectlNotRun, KubectlRunning, KubectlRefused        string
	KubectlExit                                          string // %d
	KubectlStopped                                       string // %d
	KubectlStoppedEsc                                    string
	KubectlExitOK                                        string
	KubectlExitFail                                      string // %d
	KubectlRefusedWhy                                    string // %s
	KubectlBoxHelp, KubectlBoxFigure                     string
	BarRunManifest, BarPutAway, BarQuitAll               string
	KubectlBoxEmpty, KubectlBoxCancelled                 string
	KubectlElsewhere                                     string
	KubectlReqsIntro, KubectlReqsLater, KubectlReqsNone  string
	KubectlNoResponse                                    string
	KubectlNoStore                                       string // %s: audit ID
	KubectlNoLane                                        string // %s: audit ID
	KubectlOpenLane                                      string
	KubectlNotServing, KubectlRunToEnd, KubectlNotWired  string

	// ListSep joins a list of names in a sentence (commands, contexts).
	ListSep string

	// Why :k could not split a command line into words (runtime/kubectl's Split).
	ParseShellOperator     string // %[1]q the operator, %[2]c its first character
	ParseShellVariable     string // %q the variable or substitution
	ParseTrailingBackslash string
	ParseUnterminatedQuote string // %[1]s "single" or "double" (ParseQuoteSingle/Double), %[2]c the quote
	ParseQuoteSingle       string
	ParseQuoteDouble       string

	// Why :k refused a command (runtime/kubectl's guard and, in a class, its allow-list).
	RefuseCommand              string // %[1]s command path, %[2]s why, %[3]s the commands that run
	RefuseFlag                 string // %[1]s flag name, %[2]s command path, %[3]s why
	RefuseOwnTerminal          string // %s why
	RefuseUnreviewedCommand    string
	RefuseUnreviewedFlag       string
	RefuseFlagFilename         string
	RefuseFlagKustomize        string
	RefuseReadsFiles           string
	RefuseReadsFile            string
	RefuseWritesFiles          string
	RefuseEditor               string
	RefuseToContainer          string
	RefuseOnlyKubeconfig       string
	RefuseOnlyServer           string
	RefuseProxyURL             string
	RefuseUseContext           string
	RefuseOnlyCA               string
	RefuseProfileFiles         string
	RefuseKuberc               string
	RefuseRecord               string
	RefuseRecursive            string
	RefuseLocal                string
	RefuseInteractive          string
	RefuseCopiesFiles          string
	RefuseDiffProgram          string
	RefuseKustomizeCmd         string
	RefusePluginPrograms       string
	RefuseListener             string
	RefuseCompletion           string
	RefuseChangesKubeconfig    string
	RefuseSetLastApplied       string
	RefuseSecretTLS            string
	RefuseNotNeeded            string
	RefuseNoCSR                string
	RefuseNoMetrics            string
	RefuseFileValue            string // %s the file
	RefuseOutputFile           string // %[1]s the -o format, %[2]s the same without -file
	RefuseKubeconfigUnreadable string // %s the error
	RefuseContextUnknown       string // %[1]s the context, %[2]s the contexts there are
	RefuseTermEdit             string
	RefuseTermAttach           string
	RefuseTermPortForward      string
	RefuseTermProxy            string
	RefuseTermCp               string
	RefuseTermExec             string
	RefuseTermRun              string
	RefuseTermDebug            string
	RefuseTermKuberc           string
	RefuseStdinDash            string // %s the arguments
	RefuseStdinPath            string // %s the path
	RefusePinned               string // %s the flag name
	RefuseProfiling            string // %s the flag name
	RefuseCredentialPlugin     string // %q the kubeconfig user
	RefuseVerbosity            string
	RefusePlugin               string // %[1]q the command, %[2]s its path

	// The etcd view.
	EtcdSelect, EtcdKey, EtcdRevision, EtcdStored, EtcdDeleted, EtcdDecoding string
	EtcdRevisionValue                                                        string // %d modified, %d created, %d version
	EtcdStoredValue                                                          string // %d bytes, %s encoding
	EtcdDecoded                                                              string
	EtcdKeys                                                                 string // %d
	EtcdSoFar                                                                string
	EtcdRev                                                                  string // %d
	EtcdNotWired                                                             string
	EtcdNotReady                                                             string
	EtcdListError                                                            string // %s prefix, %s error
	EtcdListing                                                              string // %s prefix
	EtcdNoKey                                                                string // %s prefix
	EtcdMore, EtcdListingNext                                                string
	EtcdRetry                                                                string // %s: the error
	// EtcdStoredAs follows the encoding: %s the storage version, %s the kind.
	EtcdStoredAs string
	// EtcdNotObject heads a value that is not a Kubernetes object: %s why.
	EtcdNotObject string
	// EtcdRawBytes is the encoding of a value stored as neither JSON nor protobuf.
	EtcdRawBytes string
	// EtcdCustomResource heads a custom resource: %s the CRD, %s its storage version.
	EtcdCustomResource string
	// EtcdUnregistered heads an object whose kind no scheme registers and no CRD defines:
	// %s the apiVersion, %s the kind.
	EtcdUnregistered string

	// The after-serve panel.
	ServedChecking, ServedOK, ServedFailing string
	ServedChecked                           string // %s status, %s time
	ServedServer, ServedKubeconfig          string
	ServedContexts, ServedTry               string
	ServedAsAdmin, ServedAliceWrites        string
	ServedBobMayNot, ServedAliceRBAC        string
	ServedCreatedBy, ServedEnvHint          string
	ServedHere, ServedHereNote, ServedTitle string

	// The lesson pane.
	LessonNoText string // %s: checkpoint ID
	LessonKube   string // %s: where in kube-apiserver

	// The source pane.
	SourceBackToStep, SourceWrapped, SourceSearchTyping, SourceNoMatch string
	SourceMatchOf                                                      string // %d of %d
	SourceMatchKeys                                                    string
	SourceNoStep                                                       string // %s: checkpoint ID
	SourceNoUpstream, SourceNoAnchor                                   string
	SourceLoading                                                      string // %s
	SourceUnavailable                                                  string // %v error, %s path, %s symbol
	SourceCannotShow                                                   string // %s anchor, %v error
	SourceNoServerSource                                               string // %s: the file
	SourceUpstreamIn                                                   string // %s symbol, %s path

	// The state pane.
	StateNothing, StateFrozen, StateNoLive, StateLiveNow, StateRawDetail string
	StateTreeDetail, StateOneChange                                      string
	StateChanges                                                         string // %d

	// The glossary.
	GlossaryEnglish, GlossaryChinese, GlossaryNote, GlossaryIntro string
	GlossaryError                                                 string // %v: the error
	GlossaryRejected                                              string // %s: the Chinese variants not used, joined with 、
	GlossaryNoted                                                 string // %s: the note

	// The exercises view (:exercises) and its toast.
	PaneExercises, PaneExercise                             string
	CmdExercises, ViewExercisesTitle                        string
	ViewExercisesDone                                       string // %d done, %d in all
	StatusExercises                                         string // %d done, %d in all
	KeyHint, KeyAnswer, KeyChoose, HelpExercisesView        string
	HelpParaExercises                                       string
	ExNotWired, ExLoading, ExNone                           string
	ExCurrentLesson                                         string // %s: the lesson title
	ExRowNeedsServe                                         string
	ExRowLocked                                             string // %s: the phase
	ExRowHints                                              string // %d shown, %d levels
	ExStateOpen, ExStateDone, ExStateNeedsServe             string
	ExStateLocked                                           string // %s: the phase
	ExLesson                                                string // %s lesson title, %s phase
	ExLiveHow, ExTextHow                                    string
	ExChoiceHow                                             string // %d: the number of options
	ExWhy                                                   string // %s: why it passed
	ExLastTry                                               string // %s: what was wrong
	ExHints                                                 string // %d shown, %d levels
	ExHintsAll                                              string // %d levels
	ExHintNudge, ExHintPointer, ExHintSolution              string
	ExHintLevel                                             string // %d: a level past the third
	ExHintHead                                              string // %d level, %s its name; the hint follows
	ExAnswerPrompt, ExAnswerHint                            string
	NoteExLocked                                            string // %s: the phase
	NoteExDone, NoteExAllHints, NoteExRight, NoteExNoAnswer string
	NoteExDoneHints                                         string
	NoteExWrong                                             string // %s: what was wrong
	NoteExNoChoice                                          string // %d: the number pressed
	NoteExHintFailed, NoteExAnswerFailed                    string // %s: the error
	ToastTitle                                              string
	ToastDone                                               string // %s: the exercise's title
	ToastMore                                               string // %d: how many more

	// What the exercise checks say about a wrong answer (the view's LastTry), and the
	// exercises in plain mode and `kubewalk lessons`.
	ExWrongEmpty, ExWrongAnswer, ExWrongNoKey, ExWrongRevision string
	ExWrongChoice                                              string // %d: the option chosen
	ExWrongRange                                               string // %d: the number of options
	// What made an exercise pass ({detail} in its why): a request, a watch's event, an
	// object's fields, an etcd key.
	ExDetailRequest       string // %s who, %s VERB, %s path, %d code
	ExDetailNobody        string // who, for an unauthenticated client
	ExDetailWatchEvent    string // %s watcher, %s resource, %s namespace, %s writer, %s VERB, %s resource/name
	ExDetailAllNamespaces string
	ExDetailObjectExists  string // %s kind, %s namespace/name
	ExDetailObjectHas     string // %s kind, %s namespace/name, %s the fields
	ExDetailFieldValue    string // %s field, %s value
	ExDetailAnd           string // between two fields
	ExDetailAnnotation    string // %s: the annotation's key
	ExDetailLabel         string // %s: the label's key
	ExDetailCondition     string // %s: the condition's type (status.conditions[type].status)
	ExDetailEtcdKey       string // %s key, %d mod revision
	ExDetailEtcdRevision  string // %s key, %s mod revision
	PlainExercises        string
	PlainExercise         string // %s marker, %s title, %s goal
	CLIExercisesReset     string

	// Errors the walkthrough returns to the command line.
	ErrNoLessons    string
	ErrStart        string // %w
	ErrInternal     string // %w
	ErrStartup      string // %w
	ErrShutdown     string // %w
	ErrLessons      string // %w
	ErrServerStop   string // %w
	ErrAlsoShutdown string // %w error, %v shutdown error
	ErrBadLang      string // %q: the flag value
	ErrFlags        string // %w: the problems with the flags (English says nothing more)
	ErrCloseKubectl string // %w
	ErrRecord       string // %s the file, %w
	ErrRecordCut    string // %s the file, %v
	ErrTheme        string // %q the flag value, %s the themes

	// kubewalk env: the export line for the running kubewalk, or why there is none.
	CLIEnvComment string // %d pid, %s server address
	ErrEnvNoPath  string
	ErrEnvNone    string // %s kubeconfig path
	ErrEnvNotYet  string // %d pid, %s kubeconfig path
	ErrEnvEnded   string // %s kubeconfig path, %d pid
	ErrEnvForeign string // %s kubeconfig path
	ErrEnvRead    string // %s kubeconfig path, %w

	// The command line (kubewalk tour, serve, lessons, glossary).
	CLIInterrupted      string
	CLIInterruptedShort string
	CLIShuttingDown     string
	// CLIKubeconfigWait: %[1]s the --kubeconfig path, %[2]d the pid of the run shutting down.
	CLIKubeconfigWait   string
	CLIProgressNotSaved string // %v: the error
	CLIResume           string // %s: where
	CLIRecorded         string // %s the file, twice
	CLIStoppedOwn       string
	CLIStoppedClean     string
	CLIReady            string // %s address, %s time
	CLIPhases           string
	CLIKubeconfig       string
	CLIContexts         string
	CLIContextsValue    string
	CLILogs             string
	CLITry              string
	CLIForbidden        string
	CLIStopHint         string
	CLILessonsWarn      string // %v
	CLINoProgress       string // %v
	CLILessonsHeader    string // PHASE, STEPS, PROGRESS, EXERCISES, LESSON, tab-separated
	CLILessonDone       string
	CLIExercisesHeading string
	CLIGlossaryHeader   string // ENGLISH, CHINESE, tab-separated
	CLICrashedNoLog     string // %s: how
	CLICrashed          string // %s how, %s log path
	CLICrashedTrace     string // %s: the panic line
	CLICouldNotRemove   string // %s: the paths
	CLIAgainInterrupted string // %s: the temp dir
	CLIAgainTerminated  string // %s: the temp dir
	CLIExitStatus       string // %d
	CLISignal           string // %s

	// Plain mode (a transcript instead of the full screen).
	PlainPrompt       string
	PlainNoStep       string // %s: checkpoint ID
	PlainKube         string // %s
	PlainSource       string // %s file, %d-%d lines, %s anchor
	PlainSourceError  string // %s anchor, %v error
	PlainUpstream     string // %s
	PlainState        string // %s: the phase
	PlainPhasesDone   string // %s
	PlainServing      string // %s: the address
	PlainKubeconfig   string // %s
	PlainExport       string // %s
	PlainRequests     string
	PlainNoTerminal   string
	PlainKeepsRunning string
	PlainTrack        string
	PlainTrackPrompt  string
	PlainLive         string // %s: the live probe id
	PlainLiveError    string // %s probe id, %v error
	PlainError        string // %s
	PlainAllowed      string
	DemoListNS        string
	DemoCreateCM      string
	DemoListSecrets   string
	DemoListCM        string
	DemoCreatePod     string

	// The after-serve track in the full screen.
	TrackLine            string // %s: the lesson's title
	TrackStepOf          string // %d step, %d steps
	StatusTrack          string
	StatusTrackShort     string // StatusTrack where the line is narrow
	StatusAllDoneNoTrack string
	// StatusAllDoneNoTrackShort and ...Shortest replace it where the line is narrow.
	StatusAllDoneNoTrackShort, StatusAllDoneNoTrackShortest string
	NoteTrackEnd                                            string
	NoteTrackBefore                                         string
	NoteTrackNone                                           string
	NoteTrackNoProbe                                        string
	NoteProbeRunning                                        string // %s: the probe id
	ErrTrackArg                                             string // %d: the number of lessons
	CmdTrack                                                string
	KeyRerun                                                string
	HelpTrack                                               string
	HelpParaTrack                                           string
	BarRerun                                                string
	BarTrack                                                string
	StateProbeDetail                                        string // %s: the probe id
	StateProbeRunning                                       string // %s: the probe id
	StateProbeReading                                       string
	StateProbeError                                         string // %s probe id, %v error
	StateProbeNone                                          string
	StateProbeNotWired                                      string

	// kube-apiserver side by side, and fetching a module's source.
	KeySideBySide     string
	KeyFetch          string
	PaneKube          string // %s: the k8s.io/kubernetes version
	KubeNone          string
	KubeIn            string // %s: the kube: location
	KubeNotWired      string // %s: the kube: location
	KubeCannotShow    string // %s location, %v error
	ModuleMissing     string // %[1]s module, %[2]s version, %[3]s size
	ModuleMissingNoSz string // %[1]s module, %[2]s version
	ModuleFetching    string // %[1]s module, %[2]s version, %[3]s bytes so far
	ModuleFetchFailed string // %[1]s module, %[2]s version, %[3]v error
	KubeLocation      string // %s: the kube: location
	UpstreamLocation  string // %s import path, %s symbol
	UpstreamBack      string
	KubeBack          string
	NoteFetchNothing  string
	NoteFetchBusy     string // %s: the module being fetched
	NoteFetched       string // %s module, %s version
	NoteFetchFailed   string // %s module, %v error
	NoteSideNoStep    string
	StatusSideBySide  string
	StatusFetching    string // %s module, %s bytes
	WelcomeNoUpstream string // %[1]s module, %[2]s version
	// F turned off (a class ssh student): the note, the pane's text, the welcome's line.
	NoteFetchOff             string
	ModuleMissingNoFetch     string // %[1]s module, %[2]s version
	WelcomeNoUpstreamNoFetch string // %[1]s module, %[2]s version

	// Live probes' hints (runtime/live): how to create what a lesson reads.
	LiveNotCreated    string // %s: the kubectl command that creates it
	LiveCreateLesson  string
	LiveNotServed     string
	LiveNothingStored string
	LiveNoController  string // %d: the pods matching

	// A follow-along class (class host, join): the class lines, the board, the CLI.
	ClassTargetInstructor string // %s: checkpoint ID
	ClassNoteDetached     string
	ClassNoteResynced     string
	ClassNoteStuck        string
	ClassNoteUnstuck      string
	ClassJoinBanner       string // %s: the join line
	ClassBoardCount       string // %d students, %d stuck
	ClassLoopbackHint     string // %s: the port
	ClassConnecting       string
	ClassLeft             string // %s: why
	ClassReconnecting     string // %s: why
	ClassFollowing        string // %s: checkpoint ID
	ClassFreePace         string // %s: checkpoint ID
	ClassDefaultTitle     string
	ClassStuckFlag        string
	ClassKeys             string
	ClassNoMessage        string
	ClassMessage          string
	BoardNotHost          string
	BoardJoinTitle        string
	BoardNoMessage        string
	BoardLastMessage      string // %s: the message
	BoardNoStudents       string
	BoardColName          string
	BoardColCheckpoint    string
	BoardColDone          string
	BoardColIdle          string
	BoardColState         string
	BoardStuck            string
	BoardFollowing        string
	BoardFreePace         string
	BoardOffline          string
	BoardTitle            string
	BoardTitleClass       string // %s title, %d students, %d stuck
	BoardInstructorAt     string // %s: checkpoint ID
	CmdMsgWhat            string
	NoteMsgSent           string
	NoteMsgFailed         string // %v: the error
	BarMsg                string
	BarBoardBack          string
	CmdBoard              string
	CmdMsg                string
	KeyClassBoard         string
	KeyClassFollow        string
	KeyClassStuck         string
	HelpClass             string
	CLIJoinRefused        string // %s address, %v the error
	CLIJoinWrongCode      string // %s address
	CLIClassNeedsTerminal string
	CLIRootClassSSH       string
	CLIRootClassHost      string
	CLISandboxMissing     string // %s: what the kernel lacks
	PlainFollowNoKeys     string
	PlainFollowTo         string // %s: the instructor's checkpoint
	PlainFollowWaiting    string // %s: the class's title
	PlainFollowLeft       string // %s: why
	PlainClassOpenStudent string
	PlainClassOpenHost    string
	CLIJoinWaiting        string // %s address
	CLIJoinNotYet         string // %s address, %v why

	// The whole course, followed (issue 15): past serve, along the track, an assigned
	// exercise, the end of the class; the in-TUI kubectl's readiness; the probe contexts.
	ClassTargetServing     string
	ClassAtServing         string
	ClassEnded             string
	ClassNoteAssigned      string // %s: the exercise's title
	ClassAssigned          string
	ClassAssignedKey       string
	ClassExDone            string
	ClassExTrying          string
	ClassExOpen            string
	ClassExLocked          string
	ClassExHints           string // %d: hints revealed; starts with the space it needs
	KeyClassAssigned       string
	BoardColAssigned       string
	BoardAssigned          string // %[1]s title, %[2]s ID, %[3]s the counts
	BoardAssignedCounts    string // %d done, %d trying, %d not started, %d not reached or not reported
	CmdAssign              string
	CmdAssignWhich         string
	CmdAssignUnknown       string // %s: the ID
	CmdAssignNoExercises   string
	NoteAssigned           string // %[1]s title, %[2]s ID
	NoteAssignedNow        string // %[1]s title, %[2]s ID
	NoteAssignTakenBack    string
	NoteAssignFailed       string // %v: the error
	SuggestExercise        string
	KubectlNoKubeconfigYet string
	KubectlServerStopped   string
	ServedProbeContexts    string
	PlainFollowStep        string // %s: the track step
	PlainFollowServing     string
	PlainFollowEnded       string
	PlainAssigned          string // %[1]s title, %[2]s ID, %[3]s goal
}

// english is the base catalogue: every string, in English.
func english() Strings {
	return Strings{
		PaneSource:       "Source",
		PaneUpstream:     "Upstream",
		PaneState:        "State",
		PaneLesson:       "Lesson",
		PaneKubectl:      "kubectl",
		PaneRequests:     "Requests",
		PaneLane:         "Lane",
		PaneRequest:      "Request",
		PaneStageSource:  "Source",
		PaneRequestsMade: "Requests it made",
		PaneValue:        "Value",
		PaneGlossary:     "Glossary",
		PaneEtcdTree:     "etcd %s",

		TooSmall:     "kubewalk needs at least %d×%d; this window is %d×%d",
		TooSmallQuit: "q quits",

		KeyNext:        "next checkpoint",
		KeyNextPhase:   "next phase",
		KeyToEnd:       "run to the end",
		KeyPhase:       "first step of a phase",
		KeyBack:        "review earlier step",
		KeyForward:     "review later step",
		KeyLive:        "back to live",
		KeyFocusNext:   "next pane",
		KeyFocusPrev:   "previous pane",
		KeyZoom:        "zoom the pane to the whole screen, and back",
		BarZoom:        "zoom",
		BarUnzoom:      "unzoom",
		KeyServed:      "kubectl panel",
		KeyUp:          "up",
		KeyDown:        "down",
		KeyPageUp:      "page up",
		KeyPageDown:    "page down",
		KeyTop:         "top",
		KeyBottom:      "bottom",
		KeyToggle:      "open / show whole",
		KeyNextChange:  "next/prev change",
		KeyPrevChange:  "previous change in state",
		KeyExpandAll:   "expand all",
		KeyCollapseAll: "collapse all",
		KeyRaw:         "raw objects",
		KeyUpstream:    "upstream source",
		KeyWrap:        "wrap source",
		KeySearch:      "search server/ source",
		KeyMatchNext:   "next/prev match",
		KeyMatchPrev:   "previous match",
		KeyOpenMatch:   "open the match's file",
		KeyCommand:     "command line",
		KeyFilter:      "filter requests",
		KeyLoopback:    "loopback requests",
		KeyStageSource: "the stage's source",
		KeyStageEtcd:   "storage stage's etcd key",
		KeyHeldStep:    "held: next stage",
		KeyHeldRun:     "held: run to the end",
		KeyHeldAbort:   "held: fail it here",
		KeyHelp:        "help",
		KeyQuit:        "quit",
		KeyAnyKey:      "any key",
		KeyAnyOtherKey: "any other key",

		BarSearch:       "search",
		BarCancel:       "cancel",
		BarScroll:       "scroll",
		BarCloseHelp:    "close help",
		BarBegin:        "begin",
		BarClose:        "close",
		BarFilter:       "filter",
		BarClearSearch:  "clear search",
		BarBackToStep:   "back to the step's code",
		BarEarlierLater: "earlier/later",
		BarLive:         "live",
		BarNext:         "next",
		BarBack:         "back",
		BarCommand:      "command",
		BarStepHeld:     "step held",
		BarRunToEnd:     "run to end",
		BarFailIt:       "fail it",
		BarSelect:       "select",
		BarLane:         "lane",
		BarStage:        "stage",
		BarStop:         "stop",
		BarOpenLane:     "open lane",
		BarMove:         "move",
		BarOpenClose:    "open/close",
		HelpUpDown:      "up/down",
		HelpPageUpDown:  "page up/down",
		HelpTopBottom:   "top/bottom",
		HelpLaneStage:   "a stage of the lane",

		HelpLiveServer:   "The live server",
		HelpReviewing:    "Reviewing",
		HelpPanes:        "Panes",
		HelpSource:       "Source",
		HelpState:        "State",
		HelpRequestsView: "Requests view (:req)",
		HelpParaSpace:    "space runs the live server to its next checkpoint and pauses it there. ← reviews the stops recorded so far (their code, state and lesson); the server stays where it is.",
		HelpParaPhases:   "1-7 go to the first step of a phase: ahead of the server they run it there; behind, they review that phase's first recorded stop.",
		HelpParaSearch:   "/ searches all of kubewalk's server/ source: n/N move between matches across files (the search line names the file), enter keeps the match's file open, esc goes back to the step's code.",
		HelpParaState:    "In the state pane + marks what this step added and ~ what it changed: the pane opens on the first of them, and ] / [ jump between them. enter opens a node, or shows a row cut at the edge (…) whole; r shows the live objects.",
		HelpParaServed:   "After serve, K switches between the lesson and the kubectl panel.",
		HelpParaCommand:  ": opens the command line, as in k9s: :req, :k (kubectl), :etcd, :break, :glossary… — :help lists the commands.",
		HelpTitle:        "Keys · any key closes",
		HelpTitleScroll:  "Keys · ↑/↓ scroll (%d%%) · any other key closes",

		WelcomeTitle:    "Welcome to kubewalk",
		WelcomeIntro:    "kubewalk starts a real Kubernetes-style API server on this machine (k8s.io/apiserver with an embedded etcd) and walks you through its startup, phase by phase:",
		WelcomePaused:   "The server is real, and paused right now at its first checkpoint. At every stop you see the code that just ran, the state it built (+ new, ~ changed) and a lesson about it. After serve, kubectl works against it.",
		WelcomeKeySpace: "run the server to its next checkpoint",
		WelcomeKeyBack:  "review an earlier stop (the server stays where it is)",
		WelcomeKeyHelp:  "every key",
		WelcomeBegin:    "Press any key to begin · q quits",

		StartingServer:          "Starting the server…",
		CheckpointOf:            "checkpoint %d/%d",
		WhereFailed:             "the server failed",
		WhereServing:            "the server is serving",
		WhereRunningTo:          "the server is running to %s",
		WherePausedAt:           "the server is paused at %s",
		StatusReviewing:         "REVIEWING step %d/%d (%s)",
		StatusReviewWhere:       "— %s",
		StatusReviewNote:        " · ←/→ step through · esc back to live",
		StatusFailed:            "✗ FAILED: ",
		StatusQuits:             " · q quits",
		StatusServing:           "✓ SERVING",
		StatusServingAt:         "✓ SERVING at %s",
		StatusBackToLesson:      " · :lesson goes back to the walkthrough",
		StatusBackToLessonShort: " · K: walkthrough",
		StatusAllDone:           " · all phases done · n: the after-serve lessons · :requests, :k kubectl, :etcd",
		StatusAllDoneShort:      " · all done · n: lessons · :requests, :k, :etcd",
		StatusAllDoneShortest:   " · n: lessons · : commands",
		StatusRunningTo:         "… running to %s",
		StatusPausedAt:          "⏸ PAUSED at %s",
		StatusPausedNote:        " · the live server waits here · space: next checkpoint",
		StatusAutoNote:          " · ▶▶ AUTO %s · any key stops it",
		StatusAutoRunning:       " · ▶▶ AUTO",
		StatusStarting:          "… starting the server",
		StatusHeld:              "⏸ %d HELD",
		TargetNextCheckpoint:    "the next checkpoint",
		TargetNextPhase:         "the next phase",
		TargetEnd:               "the end (serving)",
		TargetPhase:             "phase %s",

		NoteResumeFailed:       "could not resume the server: %s",
		NoteStartupFailed:      "the startup failed; q quits",
		NoteStartupFinished:    "startup is finished: the server is serving",
		NoteStillRunning:       "the server is still running",
		NoteAutoOff:            "auto stopped: you have the keys (space: next checkpoint)",
		NoteStillStarting:      "the server is still starting",
		NoteKubectlPanelLater:  "the kubectl panel opens once the startup has run to its end",
		NoteRowWhole:           "this row is shown whole already",
		NoteNoChange:           "nothing new or changed in the state tree at this step",
		NoteNoStopInPhase:      "no recorded stop in phase %s",
		NoteKubectlRefused:     "not run: see the kubectl pane for why, and the command to run elsewhere",
		NoteKubectlRefusedHere: "not run: see the kubectl pane for why",
		NoteLoopbackShown:      "showing the server's own loopback requests and kubewalk's own checks too",
		NoteLoopbackHidden:     "hiding the server's own loopback requests and kubewalk's own checks",
		NoteStageNoCode:        "this stage names no code",
		NoteStageNoEtcd:        "S opens the etcd key a request stored or read; this one never reached storage",
		NoteStoppingKubectl:    "stopping kubectl…",
		NoteKubectlBeside:      "kubectl %s goes on beside: its new lines show at the bottom",
		NoteKubectlBesideEnded: "kubectl %s has ended",
		NoteNoLane:             "no lane to open for this request",
		NoteEtcdNotWired:       "the etcd explorer is not wired into this run",
		NoteKeyNotListed:       "not among the keys listed so far; its value is shown",
		NoteHeldWhileTyping:    "a request is held at %s (:req shows it)",
		NoteHeldJump:           "⏸ a request is held at %s: space/n steps it on · E runs it to the end · x fails it",
		NoteBreakNotWired:      "breakpoints are not wired into this run",
		NoteNothingHeld:        "no request is held: :break STAGE[:user=NAME] holds the next matching one",
		NoteCleared:            "cleared: only requests from now on are listed (:requests all shows the others)",
		NoteBreakRemoved:       "breakpoint removed: %s",
		NoteBreakSet:           "breakpoint set: %[1]s · matching requests will be held (:unbreak %[1]s removes it)",
		NoteStepped:            "stepped on to its next stage",
		NoteLetGo:              "let go: it runs to the end",
		NoteAborted:            "failed at this stage: the client gets the error",
		NoteStepFailed:         "step failed: %s",
		NoteLetGoFailed:        "continue failed: %s",
		NoteAbortFailed:        "abort failed: %s",

		CmdRequests:             "live list of the requests through the chain (all: undo :clear)",
		CmdKubectl:              "run kubectl here against this server (--context admin|alice|bob)",
		CmdEtcd:                 "what the server stores in etcd, decoded",
		CmdBreak:                "hold requests at STAGE[:user=U][,verb=V][,resource=R]; alone: list them",
		CmdUnbreak:              "remove a breakpoint",
		CmdClear:                "clear the requests list: hide the requests so far and the / filter",
		CmdExtension:            "stop or start the aggregated API server (callers, APIService v1alpha1.extension.learn.kubewalk.io); alone: how it is",
		SuggestExtensionStop:    "stop it, as if its pod went away: its APIService turns Available=False",
		SuggestExtensionStart:   "start it again on the same port: its APIService turns Available=True",
		CmdExtensionArg:         "unknown argument %q: :extension takes stop or start, or nothing",
		ExtensionNotServing:     "the extension server runs only while kubewalk serves: press E to run to the end first",
		ExtensionAlreadyStopped: "the extension server is already stopped (:extension start starts it)",
		ExtensionAlreadyRunning: "the extension server already runs at %s",
		ExtensionStopping:       "stopping the extension server; waiting for the availability controller …",
		ExtensionStarting:       "starting the extension server; waiting for the availability controller …",
		ExtensionStopFailed:     "stopping the extension server: %v",
		ExtensionStartFailed:    "starting the extension server: %v",
		ExtensionStopped:        "extension stopped: Available=False (%[2]s), callers get 503 (APIService %[1]s)",
		ExtensionStoppedWaiting: "extension server stopped, but APIService %s has not turned unavailable yet: %v",
		ExtensionStarted:        "extension started at %s: Available=True (APIService %s)",
		ExtensionStartedWaiting: "extension server started at %s, but APIService %s has not turned available yet: %v",
		ExtensionStateRunning:   "the extension server runs at %s",
		ExtensionStateStopped:   "the extension server is stopped",
		ExtensionStatus:         "%s; APIService %s is Available=%s (%s)",
		ExtensionStatusErr:      "%s; its APIService could not be read: %v",
		CmdLesson:               "back to the walkthrough: source, state and lesson",
		CmdGlossary:             "the terms kubewalk uses, in English and Chinese",
		CmdHelp:                 "every key and command",
		CmdQuit:                 "quit kubewalk",
		CmdUnknown:              "unknown command %q: tab completes, :help lists the commands",
		CmdNoArgs:               ":%s takes no arguments",
		CmdRequestsArg:          ":requests takes no argument but all",
		CmdUnbreakWhich:         ":unbreak SPEC: which breakpoint? (tab lists them)",
		CmdColumn:               "column %d: %s",
		CmdKubectlRunning:       "kubectl %s is still running: esc in the kubectl view stops it",
		CmdKubectlBesideBusy:    "kubectl %s already runs beside: esc in the kubectl view stops the command in front, then that one",
		SuggestTitle:            "suggestions · tab completes",
		SuggestErrorTitle:       "not run · fix the line or esc",
		SuggestCommandsTitle:    "commands · tab completes",
		SuggestMore:             "… tab goes through all %d",
		PromptHint:              "  tab complete · ↑↓ history · enter run · esc back",
		SuggestShowAll:          "show the requests :clear hid",
		SuggestBreakpoint:       "breakpoint",
		SuggestContext:          "context",
		SuggestKind:             "kind",
		SuggestResource:         "resource",
		SuggestVerb:             "verb",
		SuggestOnlyUser:         "only requests with this user",
		SuggestOnlyVerb:         "only requests with this verb",
		SuggestOnlyResource:     "only requests with this resource",
		SuggestCanI:             "VERB RESOURCE: may I?",
		SuggestWhoami:           "who the server thinks I am",
		CmdEtcdKey:              ":etcd KEY: a key the server stores starts with %s and has no spaces (tab completes the keys listed)",
		SuggestEtcdPrefix:       "where the server stores its objects",
		SuggestEtcdUnder:        "keys under it",
		SuggestEtcdKey:          "key: show its value, decoded",
		SuggestEtcdNotListed:    "where the server stores its objects; tab completes keys once :etcd has listed them",
		VerbGet:                 "list or show resources",
		VerbDescribe:            "show details",
		VerbCreate:              "create a resource",
		VerbApply:               "apply a manifest file (-f FILE)",
		VerbDelete:              "delete resources",
		VerbAuth:                "can-i, whoami",
		VerbAPIResources:        "the resources the server serves",
		VerbAPIVersions:         "the group versions the server serves",
		VerbLabel:               "set labels",
		VerbAnnotate:            "set annotations",
		VerbPatch:               "patch a resource",
		VerbExplain:             "document a resource's fields",
		VerbVersion:             "client and server versions",
		VerbConfig:              "view the kubeconfig",
		FlagContext:             "who runs it: admin, alice, bob; anonymous (no certificate, no token), badtoken (401)",
		FlagWatch:               "watch: stream until esc",
		FlagOutput:              "output: yaml, json, wide, name",
		FlagNamespace:           "namespace",
		FlagAllNamespaces:       "all namespaces",
		FlagAs:                  "impersonate a user",
		FlagFile:                "a manifest file",
		FlagDryRun:              "admission and validation without storing",
		StageWhenAuthn:          "once the user is known",
		StageWhenAuthz:          "before the authorizers decide",
		StageWhenAdmission:      "before the first mutating admission plugin",
		StageWhenStorage:        "before the store reads or writes etcd",
		CommandsIntro:           "The : command line, as in k9s: tab completes, ↑/↓ bring back earlier lines, enter runs, esc backs out.",
		CommandsRequests:        "The Requests view lists every request the server handled, newest first. A request's lane shows each stage of the chain it went through as a box: ✓ passed, ✗ STOPPED the request, ⏸ HELD by a breakpoint, – did not apply. ←/→ select a stage, s opens its code, S a storage stage's etcd key; / filters, L shows the server's own loopback requests, :clear starts the list afresh.",
		CommandsBreak:           "A breakpoint (:break authorization:user=bob) holds matching requests: the screen jumps to one, and space/n steps it on to the next breakpoint stage, E lets it run to the end, x fails it at that stage with an error the client sees. ? lists every key.",
		CommandsTitle:           "Commands · any key closes",
		BreakListIntro:          "Breakpoints hold matching requests at a stage until you step them on (space/n), let them run (E) or fail them (x). Held requests are let go after 10 minutes.",
		BreakListNone:           "No breakpoint is set. :break STAGE[:user=NAME][,verb=V][,resource=R] sets one, STAGE one of authentication, authorization, admission, storage.",
		BreakListTitle:          "Breakpoints · any key closes",
		BreakListHeld:           "%d request(s) held now: :req shows them.",

		ViewRequestsTitle: "Requests through the chain",
		ViewBreakpoints:   "%d breakpoint(s) · :break",
		ViewKubectlTitle:  "kubectl in-process against this server",
		ViewKubectlHint:   ":k ARGS runs a command",
		ViewEtcdTitle:     "etcd: what the server stores under %s",
		ViewEtcdLive:      "live (watch)",
		ViewGlossaryTitle: "Glossary: the terms kubewalk uses",
		ViewGlossaryHint:  ":lesson goes back",
		PathLead:          "request path: ",
		PathHeldAt:        "⏸ held at %s: ",

		RqSelectStage:    "Select a stage in the lane and press s to see its code here.",
		RqSelectRequest:  "Select a request in the list (↑/↓) to see its lane.",
		RqLaneLater:      "Its lane shows here once a request is selected.",
		RqStageOf:        "stage %d/%d",
		RqAuditID:        "audit ID %s",
		RqHeldTitle:      "⏸ HELD · %s",
		RqUser:           "user",
		RqGroups:         "groups",
		RqActingAs:       "acting as",
		RqVerb:           "verb",
		RqResource:       "resource",
		RqNamespace:      "namespace",
		RqName:           "name",
		RqPath:           "path",
		RqResponse:       "response",
		RqReceived:       "received",
		RqAgent:          "agent",
		RqAuditCol:       "audit ID",
		RqChain:          "servers",
		RqLoopbackUser:   " (the server's own loopback client)",
		RqImpersonatedBy: "%s, impersonated by %s",
		RqLongRunning:    " (long-running)",
		RqHeldAt:         "⏸ HELD at %s since %s by breakpoint %s",
		RqHeldKeys:       "space/n next stage · E run to the end · x fail it here",
		RqBodyNone:       "body: none decoded at this stage (reads have none; a write's is decoded after authorization)",
		RqBodyDecoded:    "body (decoded):",
		RqInFlight:       "in flight",
		RqAfter:          "%s after %s",
		RqBytes:          "%s, %d bytes",
		RqShown:          "%d shown",
		RqSinceClear:     " since :clear",
		RqLoopbackHidden: " · loopback hidden (L)",
		RqLoopbackShown:  " · loopback shown (L)",
		RqDropped:        "%d dropped",
		RqHeldCount:      "⏸ %d held · ",
		ColTime:          "TIME",
		ColUser:          "USER",
		ColVerb:          "VERB",
		ColResource:      "RESOURCE",
		ColCode:          "CODE",
		ColLatency:       "LATENCY",
		CodeHeld:         "held",
		RqNotWired:       "Request tracing is not wired into this run: there is no trace store to read.",
		RqReading:        "Reading the traces…",
		RqNoneYet:        "No request yet. Try :k get cm, or kubectl in another terminal.",
		RqNotServing:     "The server is not serving yet: requests reach it once it serves (E runs the startup to the end).",
		RqNoMatch:        "No request matches %q (esc clears the filter).",
		RqNoneSinceClear: "No request since :clear (:requests all shows the earlier ones).",
		RqFilterTyping:   "  filter by user, verb, resource, name, path or code · enter · esc cancel",
		RqFilterMatches:  "  %d match · esc clears",
		RqStageTitle:     "stage %s",

		LaneMutating:     "mutating %s",
		LaneValidating:   "validating %s",
		OutcomeOK:        "ok",
		OutcomeAllowed:   "allowed",
		OutcomeDenied:    "denied",
		OutcomeNoOpinion: "no opinion",
		OutcomeChanged:   "changed",
		OutcomeNoChange:  "no change",
		OutcomeRefused:   "refused",
		OutcomeFailed:    "failed",
		OutcomeHeld:      "held",
		OutcomeAborted:   "aborted",
		OutcomeCache:     "watch cache",
		OutcomeEtcd:      "etcd",
		OutcomeSkipped:   "skipped",
		OutcomeDelegated: "handed on",
		OutcomeServed:    "answered",
		OutcomeProxied:   "proxied",
		OutcomeNotFound:  "not found",
		MarkHeld:         "HELD",
		MarkStopped:      "STOPPED",
		LaneNoStage:      "No stage recorded yet.",
		LaneInFlight:     "… in flight",
		LaneStoppedHere:  " · the request stopped here",
		LaneHeldHere:     " · held by a breakpoint",
		LanePatch:        "JSON patch (RFC 6902):",
		LaneCode:         "code: %s",
		LaneUpstream:     "upstream: %s",
		LaneOpens:        " · s opens it",
		LaneEtcdKey:      "S opens %s in the etcd explorer",

		LaneListSep:             ", ",
		LaneNamed:               "%s: %s",
		LaneUserGroups:          "%s (groups %s)",
		LaneAuthnNone:           "401 Unauthorized: no authenticator accepted the request",
		LaneAuthnErr:            "401 Unauthorized: %s",
		LaneAuthnLoopback:       "loopback token: %s",
		LaneAuthnAccepted:       "accepted: %s",
		LaneAuthnRefused:        "refused: %s",
		LaneAuthnNoCert:         "no answer: no client certificate",
		LaneAuthnNoToken:        "no answer: no bearer token",
		LaneAuthnNoAnon:         "no answer: anonymous requests are allowed on a few paths only",
		LaneAuthnNoAnswer:       "no answer",
		LaneAccessCheck:         "%s %s %s: %s",
		LaneImpTime:             "until the authorization filter, max-in-flight included (it has no span)",
		LaneImpDenied:           "403: may not impersonate",
		LaneImpChecked:          "impersonation checked",
		LaneImpActingAs:         "%s acting as %s",
		LaneImpSkipped:          "no Impersonate-User header: the request acts as its own user",
		LaneFlowTooMany:         "429 Too Many Requests: over the in-flight limit",
		LaneFlowPF:              "priority and fairness: admitted",
		LaneFlowLongRunning:     "max-in-flight: not counted (a long-running request)",
		LaneFlowAdmitted:        "max-in-flight: admitted (no priority and fairness configured)",
		LaneFlowNote:            "WithMaxInFlightLimit has no span: the request reached the authorization filter, so it was admitted; its wait is not measured",
		LaneAllowed:             "allowed",
		LaneDenied:              "denied",
		LaneNoOpinion:           "no opinion",
		LaneAllowedBy:           "%s",
		LaneAllowedReason:       "allowed: %s",
		LaneDeniedReason:        "denied: %s",
		LaneNoOpinionReason:     "no opinion (%s)",
		LaneDecisionErr:         "%s; error: %s",
		LaneForbidden:           "403 Forbidden: %s",
		LaneAuthzUnion:          "no authorizer allowed the request: a union with no Allow is a 403",
		LaneHeldStepping:        "held by stepping since %s",
		LaneHeldBreakpoint:      "held by breakpoint %s since %s",
		LaneHoldStepping:        "held by stepping %s, then %s",
		LaneHoldBreakpoint:      "held by breakpoint %s %s, then %s",
		LaneHoldStepped:         "stepped on",
		LaneHoldContinued:       "continued to the end",
		LaneHoldFailed:          "failed",
		LaneHoldTimeout:         "let go after the hold limit",
		LaneHoldReleased:        "released (kubewalk stopping or every hold released)",
		LaneHoldGone:            "the client went away",
		LaneAbortedAt:           "failed by the learner at a breakpoint (%s)",
		LaneHeldBeforeAdmission: "held before the first admission plugin",
		LaneNoChange:            "no change",
		LaneChanged:             "changed",
		LaneFieldErrors1:        "422: 1 field error from %s",
		LaneFieldErrors:         "422: %d field errors from %s",
		LaneStrategyValid:       "%s: valid",
		LaneValid:               "valid (%s)",
		LaneGenericRefused:      "the generic ObjectMeta validation in %s refused",
		LaneStorageRev:          " → rev %s",
		LaneStorageAskedRV:      " (asked for rv %s)",
		LaneStorageWhere:        ", %s",
		LaneDetailRev:           " rev %s",
		LaneDetailWhere:         " (%s)",
		LaneFromCache:           "from the watch cache",
		LaneNotFound:            "not found",
		LaneStreaming:           "streaming",
		LaneFieldTime:           "time",
		LaneFieldNote:           "note",
		LaneFieldChain:          "chain",
		LaneFieldBreakpoint:     "breakpoint",
		LaneFieldOperation:      "operation",
		LaneFieldStrategy:       "strategy",
		LaneFieldThen:           "then",
		LaneFieldKey:            "key",
		LaneFieldRevision:       "revision",
		LaneFieldMessage:        "message",
		LaneFieldAskedInHandler: "asked in the handler",
		LaneUnauthenticated:     "(unauthenticated)",
		LaneStoppedMark:         "■ stopped here",
		LaneAs:                  "%s as %s",
		LanePatchLine:           "patch %s",
		LaneFieldServer:         "server",
		LaneFieldFilters:        "filters",
		LaneFieldPath:           "went through",
		LaneFieldAPIService:     "APIService",
		LaneFieldService:        "service",
		LaneFieldAvailable:      "Available",
		LaneFieldAddress:        "address",
		LaneFieldAs:             "as",
		LaneChainFilters:        "authentication, impersonation, flow control and authorization ran here, in the front server, once for the whole chain; the servers behind it run none",
		LaneChainReached:        "reached the end of the chain",
		LaneChainNotReady:       "503: a server of the chain is still installing its paths",
		LaneChainNotFound:       "%d: no server of the chain serves %s",
		LaneChainHanded:         "no route here: handed on to %s",
		LaneChainProxied:        "APIService %s names service %s: proxied there",
		LaneChainServed:         "answered by %s",
		LaneChainServedAgg:      "answered by the aggregator itself (APIServices, discovery)",
		LaneProxyAs:             "X-Remote-User %s, with the front-proxy client certificate",
		LaneProxyTo:             "%s answered %s",
		LaneProxyErr:            "%s: %s",
		LaneProxyTime:           "the round trip to the extension server, the response copied back included",
		LaneProxyNoHop:          "%d from the aggregator: APIService %s is not Available, so no request went to its server",

		KubectlShuttingDown:  "kubewalk is shutting down",
		KubectlIntro:         "Type :k followed by kubectl's arguments, e.g. :k get cm or :k --context bob get cm. It runs the real kubectl command tree in-process against this run's server (no shell), as admin unless --context says alice or bob.",
		KubectlIntroWatch:    "-w streams until esc; once its watch is open, the next :k runs beside it and the watch's new lines show below, as in a second terminal. ↑/↓ in the prompt bring back earlier commands.",
		KubectlBeside:        "still running beside: kubectl %s (esc stops it once nothing runs in front)",
		KubectlBesideEarlier: "… %d earlier lines",
		KubectlStarting:      "starting kubectl: %w",
		KubectlAs:            "   (as %s)",
		KubectlDropped:       "… %d earlier lines dropped",
		KubectlNotRun:        "not run",
		KubectlRunning:       "running · esc stops it",
		KubectlRefused:       "refused",
		KubectlExit:          "exit %d",
		KubectlStopped:       "stopped (esc) · exit %d",
		KubectlStoppedEsc:    "■ stopped with esc",
		KubectlExitOK:        "✓ exit 0",
		KubectlExitFail:      "✗ exit %d",
		KubectlRefusedWhy:    "✗ not run: %s",
		BarRunManifest:       "run it",
		BarPutAway:           "put it away",
		BarQuitAll:           "quit kubewalk",
		KubectlBoxHelp:       "-f - reads the manifest below: type or paste it, then ctrl+d runs the command · esc puts it away",
		KubectlBoxFigure:     "manifest · ctrl+d runs",
		KubectlBoxEmpty:      "the manifest was empty: nothing was run",
		KubectlBoxCancelled:  "put the manifest away: nothing was run",
		KubectlElsewhere:     "Run it in another terminal:",
		KubectlReqsIntro:     "The requests a command makes show here, each with its lane through the chain.",
		KubectlReqsLater:     "The requests show here as their responses arrive.",
		KubectlReqsNone:      "The command made no request.",
		KubectlNoResponse:    "no response",
		KubectlNoStore:       "audit ID %s (no trace store in this run)",
		KubectlNoLane:        "audit ID %s · lane not recorded (yet)",
		KubectlOpenLane:      "enter opens the lane in the Requests view",
		KubectlNotServing:    "✗ the server is not serving yet — a client would get connection refused.",
		KubectlRunToEnd:      "Run the startup to the end first: :lesson goes back to the walkthrough, where E runs it to serve.",
		KubectlNotWired:      "kubectl inside kubewalk is not wired into this run. Run it in another terminal:",

		ListSep: ", ",

		ParseShellOperator:     "%q needs a shell, and kubewalk runs kubectl without one (no pipes, redirections, command lists or substitutions); quote it ('%c') to pass it to kubectl, or run the command in another terminal",
		ParseShellVariable:     "%q needs a shell, and kubewalk runs kubectl without one: variables and command substitution are not expanded; write the value itself, or quote it ('...') to pass it literally",
		ParseTrailingBackslash: "trailing backslash: there is nothing after it to escape",
		ParseUnterminatedQuote: "unterminated %s quote: add the closing %c",
		ParseQuoteSingle:       "single",
		ParseQuoteDouble:       "double",

		// Why :k refused a command.
		RefuseCommand:              "`%s` does not run here: %s. Commands that do: %s",
		RefuseFlag:                 "--%s does not run here with `%s`: %s",
		RefuseOwnTerminal:          "needs a terminal of its own: %s",
		RefuseUnreviewedCommand:    "it is not among the commands reviewed for a class",
		RefuseUnreviewedFlag:       "it is not among the flags reviewed for a class",
		RefuseFlagFilename:         "-f reads a file on the class host; `-f -` reads the manifest you type into the text box",
		RefuseFlagKustomize:        "-k reads a directory on the class host",
		RefuseReadsFiles:           "it reads files on the class host",
		RefuseReadsFile:            "it reads a file on the class host",
		RefuseWritesFiles:          "it writes files on the class host",
		RefuseEditor:               "it starts an editor on the class host",
		RefuseToContainer:          "it connects the terminal to a container",
		RefuseOnlyKubeconfig:       "kubectl here talks only to this run's server with its kubeconfig",
		RefuseOnlyServer:           "kubectl here talks only to this run's server",
		RefuseProxyURL:             "it would send your requests and credentials through another host",
		RefuseUseContext:           "pick an identity with --context instead",
		RefuseOnlyCA:               "kubectl here trusts only this run's CA",
		RefuseProfileFiles:         "it writes profile files on the class host",
		RefuseKuberc:               "kubectl inside kubewalk does not apply personal kubectl preferences (kuberc)",
		RefuseRecord:               "it is deprecated and does nothing useful here",
		RefuseRecursive:            "it walks directories on the class host",
		RefuseLocal:                "it works on local files",
		RefuseInteractive:          "it asks on the terminal, which the screen owns",
		RefuseCopiesFiles:          "it copies files of the class host",
		RefuseDiffProgram:          "it runs a diff program on the class host",
		RefuseKustomizeCmd:         "it reads directories (and may run programs) on the class host",
		RefusePluginPrograms:       "plugins are programs on the class host",
		RefuseListener:             "it keeps a listener open on the class host",
		RefuseCompletion:           "it is for your own shell, not this screen",
		RefuseChangesKubeconfig:    "it would change the kubeconfig kubewalk wrote for this run; pass --context to a command instead",
		RefuseSetLastApplied:       "it is not needed here: apply -f - keeps the annotation itself",
		RefuseSecretTLS:            "it reads a certificate and key from files on the class host",
		RefuseNotNeeded:            "it is not needed here",
		RefuseNoCSR:                "this server has no certificate signing requests",
		RefuseNoMetrics:            "this server has no metrics API",
		RefuseFileValue:            "-f %s reads a file on the class host; `-f -` reads the manifest you type into the text box",
		RefuseOutputFile:           "-o %s reads a file on the class host; write the template itself (-o %s=…)",
		RefuseKubeconfigUnreadable: "the run's kubeconfig cannot be read: %s",
		RefuseContextUnknown:       "--context %s is not a context of this run's kubeconfig (%s)",
		RefuseTermEdit:             "edit opens an editor on the terminal",
		RefuseTermAttach:           "attach streams a container's console to the terminal",
		RefuseTermPortForward:      "port-forward keeps a local port open until interrupted",
		RefuseTermProxy:            "proxy serves a local HTTP proxy until interrupted",
		RefuseTermCp:               "cp streams files through exec, and on an error its background goroutines end the whole process",
		RefuseTermExec:             "exec -i/-t connects the terminal to the container",
		RefuseTermRun:              "run -i/-t/--attach connects the terminal to the new pod",
		RefuseTermDebug:            "debug -i/-t/--attach connects the terminal to the debugging container",
		RefuseTermKuberc:           "kuberc edits your personal kubectl preferences, which kubectl inside kubewalk does not apply",
		RefuseStdinDash:            "-f - reads standard input, which the screen owns: type :k %s in the kubectl pane to write the manifest in its text box",
		RefuseStdinPath:            "%s is the terminal the screen owns: use -f - and write the manifest in the kubectl pane's text box",
		RefusePinned:               "--%s is pinned: kubectl here talks only to this run's server with the kubeconfig's identities (choose one with --context, or impersonate with --as)",
		RefuseProfiling:            "--%s writes profile files and installs a signal handler that exits the process",
		RefuseCredentialPlugin:     "the kubeconfig user %q runs a credential plugin, a program on the machine kubewalk runs on: kubectl here uses only identities without one",
		RefuseVerbosity:            "-v sets klog's verbosity, which is process-wide and shared with the server; the requests this command makes are listed beside its output instead",
		RefusePlugin:               "%q is a kubectl plugin (%s), a program of its own",

		EtcdSelect:         "Select a key (↑/↓, enter opens a resource or namespace) to see its value decoded with the server's own codecs.",
		EtcdKey:            "key",
		EtcdRevision:       "revision",
		EtcdStored:         "stored",
		EtcdDeleted:        "✗ deleted: the watch reported this key removed",
		EtcdDecoding:       "decoding…",
		EtcdRevisionValue:  "modified at %d, created at %d, version %d",
		EtcdStoredValue:    "%d bytes, %s",
		EtcdDecoded:        "decoded (YAML):",
		EtcdKeys:           "%d keys",
		EtcdSoFar:          " so far",
		EtcdRev:            "rev %d",
		EtcdNotWired:       "The etcd explorer is not wired into this run: there is no etcd reader.",
		EtcdNotReady:       "Nothing to explore yet: the server connects to etcd, and learns where each resource's keys go, in the storage phase. Go back to the walkthrough (K) and step on to storage/rest-stores (E runs to the end): this view lists the keys as soon as the server gets there.",
		EtcdListError:      "✗ listing %s: %s",
		EtcdListing:        "Listing %s…",
		EtcdNoKey:          "No key under %s.",
		EtcdMore:           "… more keys: move down to list the next page",
		EtcdListingNext:    "… listing the next page",
		EtcdRetry:          "✗ %s (enter tries again)",
		EtcdStoredAs:       ", stored as %s %s",
		EtcdNotObject:      "# not a Kubernetes object: %s",
		EtcdRawBytes:       "raw bytes",
		EtcdCustomResource: "# a custom resource: CRD %s defines it (storage version %s). Custom resources are stored as JSON, never protobuf, decoded here as unstructured objects.",
		EtcdUnregistered:   "# %s %s is in no scheme of the server and no stored CRD has this key's prefix: decoded from JSON as an unstructured object.",

		ServedChecking:    "readyz: checking…",
		ServedOK:          "readyz: ✓ ok",
		ServedFailing:     "readyz: ✗ failing",
		ServedChecked:     " (%s) · checked %s",
		ServedServer:      "server:",
		ServedKubeconfig:  "kubeconfig:",
		ServedContexts:    "contexts:",
		ServedTry:         "Try it from another terminal:",
		ServedAsAdmin:     "# as admin (system:masters)",
		ServedAliceWrites: "# alice may write configmaps",
		ServedBobMayNot:   "# bob may not: expect Forbidden",
		ServedCreatedBy:   "# admission added kubewalk.io/created-by: alice",
		ServedEnvHint:     "# the same, in any shell: eval \"$(kubewalk env)\"",
		ServedAliceRBAC:   "# what RBAC allows alice",
		ServedHere:        "Or right here, on the : command line:",
		ServedHereNote:    "# :k runs kubectl inside kubewalk; :req lists every request with its lane through the chain",
		ServedTitle:       "the server is serving",

		LessonNoText: "No lesson text for %s yet.",
		LessonKube:   "In kube-apiserver: %s",

		SourceBackToStep:     "esc: back to the step",
		SourceWrapped:        "wrapped",
		SourceSearchTyping:   "  enter search · esc cancel",
		SourceNoMatch:        "no match",
		SourceMatchOf:        "%d of %d",
		SourceMatchKeys:      " · n/N next/prev · enter open · esc clear",
		SourceNoStep:         "No lesson step for checkpoint %s yet.",
		SourceNoUpstream:     "This step names no upstream function.\n\nPress u to return to kubewalk's source.",
		SourceNoAnchor:       "This step names no source anchor.",
		SourceLoading:        "Loading %s…",
		SourceUnavailable:    "Upstream source unavailable: %v\n\nimport path: %s\nsymbol:      %s\n\nRun `go mod download k8s.io/apiserver` to fetch it into the module cache; press u to return to kubewalk's source.",
		SourceCannotShow:     "Cannot show %s: %v",
		SourceNoServerSource: "no server source to open %s",
		SourceUpstreamIn:     "upstream: %s in %s",

		StateNothing:    "Nothing built yet.",
		StateFrozen:     "The server is running; live objects are read again at the next pause.",
		StateNoLive:     "No live objects at this checkpoint.",
		StateLiveNow:    "Live objects are read now: they show the server as it is, not as it was at this stop.",
		StateRawDetail:  "raw live objects (r: tree)",
		StateTreeDetail: "tree (r: raw objects)",
		StateOneChange:  "1 change: ]/[",
		StateChanges:    "%d changes: ]/[",

		GlossaryEnglish:  "English",
		GlossaryChinese:  "中文",
		GlossaryNote:     "Note",
		GlossaryIntro:    "The terms the lessons and screens use, one term per concept, each with a short definition and the Chinese variants kubewalk does not use. API identifiers, flags, kinds and function names stay English.",
		GlossaryError:    "The glossary could not be read: %v",
		GlossaryRejected: "not: %s",
		GlossaryNoted:    "note: %s",

		PaneExercises:      "Exercises",
		PaneExercise:       "Exercise",
		CmdExercises:       "exercises checked against the live server: goals, hints, answers",
		ViewExercisesTitle: "Exercises: act on the live server, kubewalk checks",
		ViewExercisesDone:  "%d of %d done",
		StatusExercises:    "exercises %d/%d",
		KeyHint:            "next hint",
		KeyAnswer:          "type an answer",
		KeyChoose:          "choose an option",
		HelpExercisesView:  "Exercises view (:ex)",
		HelpParaExercises:  ":exercises lists the exercises, the current lesson's first: ✓ done, ○ open, ⏸ waits for serve, · locked until the walkthrough reaches its phase. An exercise ticks the moment the live server shows it is done, with why; h shows the hints one level at a time (a nudge, a pointer, the solution).",
		ExNotWired:         "Exercises are not wired into this run.",
		ExLoading:          "Reading the exercises…",
		ExNone:             "This run has no exercises.",
		ExCurrentLesson:    "%s · now",
		ExRowNeedsServe:    "needs serve",
		ExRowLocked:        "at %s",
		ExRowHints:         "hints %d/%d",
		ExStateOpen:        "○ open",
		ExStateDone:        "✓ done",
		ExStateNeedsServe:  "⏸ waits for serve: its check needs a serving server (E runs to the end)",
		ExStateLocked:      "· locked: opens when the walkthrough reaches %s",
		ExLesson:           "lesson: %s · phase %s",
		ExLiveHow:          "Do it with kubectl (:k here, or in another terminal): it ticks by itself when the server shows it is done.",
		ExTextHow:          "a (or enter) opens the answer line.",
		ExChoiceHow:        "Press the number of your choice (1–%d).",
		ExWhy:              "why: %s",
		ExLastTry:          "✗ not yet: %s",
		ExHints:            "Hints: %d of %d shown · h shows the next",
		ExHintsAll:         "Hints: all %d shown",
		ExHintNudge:        "nudge",
		ExHintPointer:      "pointer",
		ExHintSolution:     "solution",
		ExHintLevel:        "hint %d",
		ExHintHead:         "%d %s: ",
		ExAnswerPrompt:     "answer› ",
		ExAnswerHint:       "  enter checks · esc cancels",
		NoteExLocked:       "this exercise opens when the walkthrough reaches %s",
		NoteExDone:         "this exercise is done already",
		NoteExAllHints:     "every hint is shown",
		NoteExDoneHints:    "this exercise is done: no more hints are counted for it",
		NoteExRight:        "✓ right",
		NoteExNoAnswer:     "this exercise is checked on the live server: there is nothing to type",
		NoteExWrong:        "✗ not yet: %s",
		NoteExNoChoice:     "there is no option %d",
		NoteExHintFailed:   "hint: %s",
		NoteExAnswerFailed: "answer: %s",
		ToastTitle:         "exercise done · :ex lists them",
		ToastDone:          "✓ %s",
		ToastMore:          "and %d more",

		ExWrongEmpty:          "the answer is empty",
		ExWrongAnswer:         "not the expected answer",
		ExWrongNoKey:          "that key is not in etcd yet",
		ExWrongRevision:       "not the key's current mod revision",
		ExWrongChoice:         "option %d is not right",
		ExWrongRange:          "pick an option from 1 to %d",
		ExDetailRequest:       "%s %s %s → %d",
		ExDetailNobody:        "an unauthenticated client",
		ExDetailWatchEvent:    "%s's watch on %s in %s got the event of %s's %s of %s",
		ExDetailAllNamespaces: "all namespaces",
		ExDetailObjectExists:  "%s %s exists",
		ExDetailObjectHas:     "%s %s has %s",
		ExDetailFieldValue:    "%s = %s",
		ExDetailAnd:           ", ",
		ExDetailAnnotation:    "annotation %s",
		ExDetailLabel:         "label %s",
		ExDetailCondition:     "condition %s",
		ExDetailEtcdKey:       "%s (mod revision %d)",
		ExDetailEtcdRevision:  "%s is at mod revision %s",
		PlainExercises:        "Exercises of this lesson (the full-screen UI checks them live: :exercises):",
		PlainExercise:         "  %s %s: %s",
		CLIExercisesReset:     "exercise progress cleared",

		ErrNoLessons:    "no lessons loaded",
		ErrStart:        "start the server: %w",
		ErrInternal:     "internal error, the stack trace is printed above: %w",
		ErrStartup:      "startup failed: %w",
		ErrShutdown:     "shutdown: %w",
		ErrLessons:      "lessons: %w",
		ErrServerStop:   "server stopped: %w",
		ErrAlsoShutdown: "%w (and while shutting down: %v)",
		ErrBadLang:      "--lang %q: not a supported language; choose en or zh-CN (Traditional Chinese is not available yet)",
		ErrFlags:        "%w",
		ErrCloseKubectl: "closing kubectl: %w",
		ErrRecord:       "--record %s: %w",
		ErrRecordCut:    "the recording %s is incomplete: %v",
		ErrTheme:        "--theme %q: no such theme; choose %s",

		CLIEnvComment: "# kubewalk (pid %d) serves %s; eval \"$(kubewalk env)\" points this shell's kubectl at it",
		ErrEnvNoPath:  "no default kubeconfig path (no $XDG_RUNTIME_DIR and no home directory): pass --kubeconfig, the path kubewalk printed",
		ErrEnvNone:    "no kubewalk is running: there is no kubeconfig at %s. Start one (kubewalk, or go run ./cmd/kubewalk) in another terminal, or pass --kubeconfig if you gave it one",
		ErrEnvNotYet:  "kubewalk (pid %d) is running but has not written %s yet: it does when the server serves, at the last step of the serve phase (E runs there)",
		ErrEnvEnded:   "no kubewalk is running: the run that wrote %s (pid %d) has ended. Start kubewalk again",
		ErrEnvForeign: "%s was not written by kubewalk: pass --kubeconfig, the path kubewalk printed",
		ErrEnvRead:    "--kubeconfig %s: %w",

		CLIInterrupted:      "interrupted; everything was shut down",
		CLIInterruptedShort: "interrupted",
		CLIShuttingDown:     "shutting down (server, etcd, temp files)… Ctrl-C again exits at once",
		CLIKubeconfigWait:   "waiting for the kubewalk run (pid %[2]d) that is shutting down to let go of --kubeconfig %[1]s…",
		CLIProgressNotSaved: "%v; progress will not be saved",
		CLIResume:           "Last time you reached %s. Run there without pausing? [Y/n] ",
		CLIRecorded:         "recording saved to %s (replay it: asciinema play %s)",
		CLIStoppedOwn:       "the server stopped on its own",
		CLIStoppedClean:     "stopped cleanly",
		CLIReady:            "API server ready at %s in %s",
		CLIPhases:           "phases:",
		CLIKubeconfig:       "kubeconfig:",
		CLIContexts:         "contexts:",
		CLILogs:             "logs:",
		CLIContextsValue:    "admin (system:masters), alice (configmaps in default), bob (discovery only)",
		CLITry:              "Try it from another terminal:",
		CLIForbidden:        "# forbidden",
		CLIStopHint:         "Press Ctrl-C to stop; the server, etcd and temp files go with it.",
		CLILessonsWarn:      "warning: some lessons could not be loaded (run 'kubewalk lessons check'):\n%v",
		CLINoProgress:       "warning: %v; showing no progress",
		CLILessonsHeader:    "PHASE\tSTEPS\tPROGRESS\tEXERCISES\tLESSON",
		CLILessonDone:       "done",
		CLIExercisesHeading: "Exercises (✓ done, ○ not yet; kubewalk tour, then :exercises, to do them):",
		CLIGlossaryHeader:   "ENGLISH\tCHINESE",
		CLICrashedNoLog:     "kubewalk crashed (%s) before it opened its log; its error output, if any, is above",
		CLICrashed:          "kubewalk crashed (%s); the log is at %s",
		CLICrashedTrace:     "\n  %s\n  (the stack trace is at the end of the log)",
		CLICouldNotRemove:   "\n  could not remove: %s",
		CLIAgainInterrupted: "interrupted again: exiting now without finishing the shutdown; temp files may remain in %s/kubewalk-*",
		CLIAgainTerminated:  "terminated again: exiting now without finishing the shutdown; temp files may remain in %s/kubewalk-*",
		CLIExitStatus:       "exit status %d",
		CLISignal:           "signal: %s",

		PlainPrompt:                  "[Enter] next step · [p]+Enter next phase · [a]+Enter run to the end · [q]+Enter quit › ",
		PlainNoStep:                  "(no lesson step covers %s)",
		PlainKube:                    "In kube-apiserver: %s",
		PlainSource:                  "source: server/%s:%d-%d (%s)",
		PlainSourceError:             "source: %s (not resolved: %v)",
		PlainUpstream:                "upstream: %s",
		PlainState:                   "state (%s):",
		PlainPhasesDone:              "phases done: %s",
		PlainServing:                 "The server is serving at %s",
		PlainKubeconfig:              "kubeconfig: %s (contexts: admin, alice, bob, anonymous, badtoken)",
		PlainExport:                  "  export KUBECONFIG=%s; kubectl get ns",
		PlainRequests:                "Requests through the chain you just built:",
		PlainNoTerminal:              "stdin is not a terminal, so nothing can keep this server running: it stops now, with its kubeconfig. To use kubectl with a server, run `kubewalk serve` (or `kubewalk --plain` in a terminal).",
		PlainKeepsRunning:            "The server keeps running for kubectl. Press Enter (or Ctrl-C) to stop it › ",
		PlainTrack:                   "After-serve lessons: they read the running server. Create the objects a step names with kubectl, then read the step again.",
		PlainTrackPrompt:             "[Enter] next step · [q]+Enter leave the lessons › ",
		PlainLive:                    "live (%s):",
		PlainLiveError:               "live (%s): not read: %v",
		PlainError:                   "error: %s",
		PlainAllowed:                 "200/201 allowed",
		DemoListNS:                   "list namespaces",
		DemoCreateCM:                 "create configmap default/plain-demo",
		DemoListSecrets:              "list secrets in default",
		DemoListCM:                   "list configmaps in default",
		DemoCreatePod:                "create pod with image nginx:latest",
		TrackLine:                    "after serve · %s",
		TrackStepOf:                  "step %d of %d",
		StatusAllDoneNoTrack:         " · all phases done · :requests, :k kubectl, :etcd · K: the kubectl panel",
		StatusAllDoneNoTrackShort:    " · all done · : requests, kubectl, etcd · K: panel",
		StatusAllDoneNoTrackShortest: " · : requests, kubectl, etcd",
		StatusTrack:                  " · after-serve lessons · r: read the server again",
		StatusTrackShort:             " · r: read again",
		NoteTrackEnd:                 "the last after-serve step: ← goes back, esc to the serve stop",
		NoteTrackBefore:              "The after-serve lessons read the running server, so they open once it serves. Press E to run startup to the end, then n.",
		NoteTrackNone:                "no after-serve lessons are loaded",
		NoteTrackNoProbe:             "this step reads nothing live",
		NoteProbeRunning:             "still reading the server (%s)",
		ErrTrackArg:                  ":track takes a lesson number from 1 to %d",
		CmdTrack:                     "the after-serve lessons (N: start at lesson N)",
		KeyRerun:                     "read the server again (after-serve step)",
		HelpTrack:                    "After-serve lessons",
		HelpParaTrack:                "Once the server serves, n opens the after-serve lessons (also :track): each step shows our code, its lesson and, in the state pane, what a live probe reads from the running server. Create the objects a step names with kubectl (K, or a second terminal), then press r to read again; the probe also runs whenever you come back to the step. ← goes back, esc returns to the serve stop. s shows the matching kube-apiserver v1.37.2 function beside our code (F fetches its source when the module cache lacks it).",
		BarRerun:                     "read again",
		BarTrack:                     "after-serve lessons",
		StateProbeDetail:             "live · %s",
		StateProbeRunning:            "Reading the running server (probe %s)…",
		StateProbeReading:            "reading…",
		StateProbeError:              "The probe %s could not read the server: %v\n\nPress r to try again.",
		StateProbeNone:               "This step reads nothing live: its code and lesson are the point.",
		StateProbeNotWired:           "Live probes are not wired into this screen.",

		KeySideBySide:     "kube-apiserver side by side",
		KeyFetch:          "fetch missing source (go mod download)",
		PaneKube:          "kube-apiserver %s",
		KubeNone:          "This step names no kube-apiserver location.\n\nPress s to close the side-by-side view.",
		KubeIn:            "kube-apiserver: %s",
		KubeNotWired:      "kube-apiserver's source cannot be read here.\n\nThe location: %s",
		KubeCannotShow:    "Cannot show %s: %v",
		ModuleMissing:     "%[1]s %[2]s is not in the Go module cache.\n\nPress F to fetch it (`go mod download %[1]s@%[2]s`, about %[3]s); the screen stays usable while it downloads, and q stops it.",
		ModuleMissingNoSz: "%[1]s %[2]s is not in the Go module cache.\n\nPress F to fetch it (`go mod download %[1]s@%[2]s`); the screen stays usable while it downloads, and q stops it.",
		ModuleFetching:    "Fetching %[1]s %[2]s into the Go module cache… %[3]s so far.\n\nThe screen stays usable; q quits and stops the download.",
		ModuleFetchFailed: "Could not fetch %[1]s %[2]s: %[3]v\n\nPress F to try again, or run `go mod download %[1]s@%[2]s` yourself when you are online.",
		KubeLocation:      "The location: %s",
		UpstreamLocation:  "import path: %s\nsymbol:      %s",
		UpstreamBack:      "Press u to return to kubewalk's source.",
		KubeBack:          "Press s to close the side-by-side view.",
		NoteFetchNothing:  "nothing to fetch: the source on screen is not missing",
		NoteFetchBusy:     "already fetching %s",
		NoteFetched:       "%s %s is now in the Go module cache",
		NoteFetchFailed:   "fetching %s failed: %v",
		NoteSideNoStep:    "no step on screen to compare",
		StatusSideBySide:  " · our code beside kube-apiserver's · tab switches side · s closes",
		StatusFetching:    " · fetching %s: %s",
		WelcomeNoUpstream: "%[1]s %[2]s is not in the Go module cache: the upstream source (u) will offer to fetch it (F).",
		NoteFetchOff:      "F is off in this session: a download would write to the class machine's Go module cache and use its network",
		ModuleMissingNoFetch: "%[1]s %[2]s is not in this machine's Go module cache, and this session does not fetch modules: " +
			"a download would write to the machine's module cache and use its network.\n\nThe instructor can run `go mod download %[1]s@%[2]s` on it.",
		WelcomeNoUpstreamNoFetch: "%[1]s %[2]s is not in this machine's Go module cache, and this session does not fetch it: the upstream source (u) shows only where the code is.",

		LiveNotCreated:    "not created yet — %s",
		LiveCreateLesson:  "kubectl apply -f the v1alpha1 Lesson in the lesson text",
		LiveNotServed:     "not served",
		LiveNothingStored: "no object stored yet",
		LiveNoController:  "%d (no controller creates them)",

		ClassTargetInstructor: "the instructor's checkpoint %s",
		ClassNoteDetached:     "free pace: the instructor's steps no longer move your server (D re-syncs)",
		ClassNoteResynced:     "following the instructor again",
		ClassNoteStuck:        "stuck flag raised: the instructor sees it on the board (! lowers it)",
		ClassNoteUnstuck:      "stuck flag lowered",
		ClassJoinBanner:       "JOIN: %s",
		ClassBoardCount:       "students: %d, stuck: %d · B board",
		ClassLoopbackHint:     "only this machine can join: restart with --listen 0.0.0.0:%s to open it to the room",
		ClassConnecting:       "connecting to the class…",
		ClassLeft:             "✗ left the class (%s); your tour goes on",
		ClassReconnecting:     "⚠ connection lost, reconnecting; your tour goes on (%s)",
		ClassFollowing:        "⇢ following the instructor (at %s)",
		ClassFreePace:         "◇ free pace (instructor at %s)",
		ClassDefaultTitle:     "CLASS",
		ClassStuckFlag:        "✋ STUCK",
		ClassKeys:             "D detach/re-sync · ! stuck",
		ClassNoMessage:        "✉ no message from the instructor yet",
		ClassMessage:          "✉ instructor:",
		BoardNotHost:          ":board and :msg are for the instructor of a class (kubewalk class host)",
		BoardJoinTitle:        "Students type",
		BoardNoMessage:        "no message sent yet (:msg TEXT sends one to every student)",
		BoardLastMessage:      "last message: %s",
		BoardNoStudents:       "no student has joined yet",
		BoardColName:          "NAME",
		BoardColCheckpoint:    "CHECKPOINT",
		BoardColDone:          "EXERCISES",
		BoardColIdle:          "IDLE",
		BoardColState:         "STATE",
		BoardStuck:            "✋ STUCK",
		BoardFollowing:        "⇢ following",
		BoardFreePace:         "◇ free pace",
		BoardOffline:          "✗ offline",
		BoardTitle:            "Class board",
		BoardTitleClass:       "Class board: %s — students: %d, stuck: %d",
		BoardInstructorAt:     "you are at %s",
		CmdMsgWhat:            "say what to send: :msg TEXT (one line)",
		NoteMsgSent:           "message sent to the class",
		NoteMsgFailed:         "the message was not sent: %v",
		BarMsg:                "message the class",
		BarBoardBack:          "tour",
		CmdBoard:              "the class board: every student's checkpoint, exercises, idle time, stuck flag",
		CmdMsg:                "send a one-line message to every student",
		KeyClassBoard:         "class board",
		KeyClassFollow:        "detach / re-sync with the instructor",
		KeyClassStuck:         "raise / lower the stuck flag",
		CLIJoinRefused:        "join %s: %v",
		CLIJoinWrongCode:      "join %s: wrong join code — copy it again from the join line on the instructor's screen and run kubewalk join once more",
		CLIClassNeedsTerminal: "class host needs a terminal to step through the tour: run it in one, or add --auto to run the walkthrough on its own (the students follow every checkpoint)",
		CLIRootClassSSH:       "WARNING: running as root. The class's SSH server runs as root; every student's tour runs as the --run-as user (nobody by default), sandboxed. Running the class as a dedicated unprivileged account keeps the SSH server off root too (sudo -u kubewalk-class kubewalk class ssh …), see docs/classroom.md",
		CLIRootClassHost:      "WARNING: running as root. The class endpoint that students, and anyone on its network, connect to runs as root; run class host as your ordinary user",
		CLISandboxMissing:     "--sandbox auto: this kernel has no %s; the students' tours run without it (--sandbox require refuses to start then), see docs/classroom.md",
		PlainFollowNoKeys:     "kubewalk: a plain transcript that follows the class: there are no keys here (no D to detach, no ! for stuck); Ctrl-C leaves",
		PlainFollowTo:         "⇢ the instructor is at %s: running there",
		PlainFollowWaiting:    "⇢ following %s: waiting for the instructor to move on",
		PlainFollowLeft:       "✗ left the class (%s); the transcript runs on to the end",
		PlainClassOpenStudent: "The walkthrough is done. The server keeps running and the instructor's messages still print here; Ctrl-C leaves the class.",
		PlainClassOpenHost:    "The walkthrough is done. The class stays open for the students; Ctrl-C ends it.",
		CLIJoinWaiting:        "kubewalk: waiting for the class at %s…",
		CLIJoinNotYet:         "kubewalk: the class at %s does not answer yet (%v); starting your tour, it keeps trying",

		ClassTargetServing:     "the end (serving), with the instructor",
		ClassAtServing:         "serving",
		ClassEnded:             "■ the class has ended; your tour goes on",
		ClassNoteAssigned:      "the instructor assigned an exercise: %s — A opens it",
		ClassAssigned:          "✎ exercise:",
		ClassAssignedKey:       "A opens it",
		ClassExDone:            "✓ done",
		ClassExTrying:          "✎ trying",
		ClassExOpen:            "○ not started",
		ClassExLocked:          "· not reached",
		ClassExHints:           " (hints: %d)",
		KeyClassAssigned:       "open the assigned exercise",
		BoardColAssigned:       "ASSIGNED",
		BoardAssigned:          "assigned: %[1]s (%[2]s) — %[3]s",
		BoardAssignedCounts:    "done %d · trying %d · not started %d · not there yet %d",
		CmdAssign:              "assign an exercise to the class (ID; - takes it back)",
		CmdAssignWhich:         "say which exercise: :assign ID (tab lists the IDs)",
		CmdAssignUnknown:       "no exercise %q: tab after :assign lists the IDs",
		CmdAssignNoExercises:   "the exercises are not loaded: nothing to assign",
		NoteAssigned:           "assigned to the class: %[1]s (%[2]s); the board shows how each student stands",
		NoteAssignedNow:        "assigned: %[1]s (%[2]s); :assign - takes it back",
		NoteAssignTakenBack:    "assignment taken back",
		NoteAssignFailed:       "not assigned: %v",
		SuggestExercise:        "exercise",
		KubectlNoKubeconfigYet: "The server listens, but the kubeconfig kubectl reads is written at serve/kubeconfig, a few checkpoints on.",
		KubectlServerStopped:   "✗ the server has stopped — a client would get connection refused.",
		ServedProbeContexts:    "anonymous (no certificate, no token); badtoken (401)",
		PlainFollowStep:        "⇢ the instructor is at %s",
		PlainFollowServing:     "⇢ the instructor's server serves: running to the end",
		PlainFollowEnded:       "■ the class has ended; the transcript goes on to the end",
		PlainAssigned:          "✎ the instructor assigned an exercise: %[1]s (%[2]s) — %[3]s",
		HelpClass:              "In a class (kubewalk join, class host)",
	}
}
