package policy

// confidentialLabels reports whether label is masked in every error and
// explanation, whatever the policy says.
func confidentialLabels(label string) bool {
	return label == "secret" || label == "sensitive" || label == "pii"
}

// Confidential reports whether the text of data carrying label is masked
// ([REDACTED]) where errors and explanations would quote it: secret,
// sensitive and pii always, and any label a layer of s has a labels rule
// for. s may be nil. Errors carry no labels and travel further than data
// (logs, an LLM reading them back), so they must not carry the data.
func (s *Set) Confidential(label string) bool {
	return confidentialLabels(label) || (s != nil && s.labelNames[label])
}
