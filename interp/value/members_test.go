package value_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardrun/guardrun/interp/value"
	"github.com/guardrun/guardrun/taint"
)

func labelled(data any, labels ...string) *value.Variable {
	v := value.New(data)
	v.Security = taint.New(labels...)
	return v
}

func TestRecordMembersKeepDescriptors(t *testing.T) {
	r := value.NewRecord()
	r.Set("input", labelled("k1", "secret"))
	r.SetData("name", "probe")
	r.Set("items", value.ListOf([]*value.Variable{labelled("a", "pii"), value.New("b")}))
	whole := r.Variable()

	require.Equal(t, []string{"secret", "pii"}, whole.Security.Labels(), "the whole carries the union")
	in, ok := whole.Member("input")
	require.True(t, ok)
	require.Equal(t, "k1", in.Data)
	require.Equal(t, []string{"secret"}, in.Security.Labels())
	name, ok := whole.Member("name")
	require.True(t, ok)
	require.Empty(t, name.Security.Labels())
	items, _ := whole.Member("items")
	require.Equal(t, []string{"pii"}, items.Security.Labels())
	first, ok := items.Member("0")
	require.True(t, ok)
	require.Equal(t, []string{"pii"}, first.Security.Labels())
	second, _ := items.Member("1")
	require.Empty(t, second.Security.Labels())
	_, ok = whole.Member("missing")
	require.False(t, ok, "no member: the caller falls back to the whole's descriptor")
}

func TestMemberOfChangedCopyKeepsAddedLabels(t *testing.T) {
	r := value.NewRecord()
	r.SetData("name", "probe")
	c := *r.Variable()
	c.Security = c.Security.WithLabels("reviewed")
	name, ok := c.Member("name")
	require.True(t, ok)
	require.Equal(t, []string{"reviewed"}, name.Security.Labels())
}
