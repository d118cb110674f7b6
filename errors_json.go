package guardrun

import "encoding/json"

// errorJSON is the wire shape of an Error in `guardrun --json` output. Guard
// keys match mlld's expected-error.json names so tools can compare directly.
type errorJSON struct {
	Message          string `json:"message"`
	Name             string `json:"name"`
	Hint             string `json:"hint,omitempty"`
	GuardName        string `json:"guardName,omitempty"`
	Filter           string `json:"filter,omitempty"`
	Reason           string `json:"reason,omitempty"`
	Operation        string `json:"operation,omitempty"`
	OperationSubtype string `json:"operationSubtype,omitempty"`
	Timing           string `json:"timing,omitempty"`
	OutputPreview    string `json:"outputPreview,omitempty"`
	Decision         string `json:"decision,omitempty"`
	RetryHint        string `json:"retryHint,omitempty"`
	Policy           string `json:"policy,omitempty"`
	Rule             string `json:"rule,omitempty"`
	File             string `json:"file,omitempty"`
	Line             int    `json:"line,omitempty"`
	Column           int    `json:"column,omitempty"`
	// Denial is the refusal in the shape agent decisions share.
	Denial *Denial `json:"denial,omitempty"`
}

// MarshalJSON encodes the error as {"message","name",guard fields...,
// "file","line","column","denial"}, leaving out empty guard fields and,
// for an error that is no denial, "denial".
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(errorJSON{
		Message:          e.Message,
		Name:             e.Name,
		Hint:             e.Hint,
		GuardName:        e.GuardName,
		Filter:           e.Filter,
		Reason:           e.Reason,
		Operation:        e.Operation,
		OperationSubtype: e.OperationSubtype,
		Timing:           e.Timing,
		OutputPreview:    e.OutputPreview,
		Decision:         e.decisionWord(),
		RetryHint:        e.RetryHint,
		Policy:           e.Policy,
		Rule:             e.Rule,
		File:             e.Pos.File,
		Line:             e.Pos.Line,
		Column:           e.Pos.Col,
		Denial:           e.Denial,
	})
}

// Fields returns the error's structured fields keyed by the names mlld uses
// in expected-error.json (name, guardName, filter, guardFilter, reason,
// operation, ...). Empty fields are left out.
func (e *Error) Fields() map[string]string {
	m := map[string]string{}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	add("name", e.Name)
	add("message", e.Message)
	add("guardName", e.GuardName)
	add("filter", e.Filter)
	add("guardFilter", e.Filter)
	add("reason", e.Reason)
	add("operation", e.Operation)
	add("operationSubtype", e.OperationSubtype)
	add("timing", e.Timing)
	add("outputPreview", e.OutputPreview)
	add("decision", e.decisionWord())
	add("retryHint", e.RetryHint)
	add("policy", e.Policy)
	add("rule", e.Rule)
	return m
}

// decisionWord is the refusal's action as JSON and Fields write it,
// empty for an error that is no refusal.
func (e *Error) decisionWord() string {
	if e.Denial == nil {
		return ""
	}
	return e.Decision.String()
}
