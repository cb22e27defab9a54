package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Caller is one user the extension server has served callers to, named after the user.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Caller struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// User is the user name the extension server authenticated, from X-Remote-User.
	User string `json:"user"`
	// Groups are the user's groups, from X-Remote-Group.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// Requests counts the reads of callers the user has made since the extension started.
	Requests int64 `json:"requests"`
	// LastSeen is when the user last read callers.
	LastSeen metav1.Time `json:"lastSeen"`
}

// CallerList is a list of Callers.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type CallerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Caller `json:"items"`
}
