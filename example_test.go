package guardrun_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardrun/guardrun"
	"github.com/guardrun/guardrun/interp/hooks"
)

func ExampleProgram_Run() {
	src := []byte("/var @name = \"world\"\n/show `Hello, @name!`\n")
	prg, err := guardrun.Compile("hello.md", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := prg.Run(context.Background(), guardrun.WithoutCode())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Document)
	// Output: Hello, world!
}

func ExampleError_Render() {
	prg, err := guardrun.Compile("bad.mld", []byte("var @x = \"ok\"\nshow @missing\n"))
	if err != nil {
		fmt.Print(err.(*guardrun.Error).Render())
		return
	}
	_, err = prg.Run(context.Background())
	if e, ok := err.(*guardrun.Error); ok {
		fmt.Println(e.Name, e.Pos.Line)
	}
	// Output: VariableError 2
}

// Per-call inputs: the program is compiled once, and each run gets its
// own variables. A Labelled value is labelled data, which guards see.
func ExampleWithVars() {
	src := []byte(`guard @noleak before secret = when [ * => deny "secrets stay in" ]
show ` + "`@req.user wants @req.items.length() items`" + `
show @token
`)
	prg, err := guardrun.Compile("request.mld", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := prg.Run(context.Background(), guardrun.WithVars(map[string]any{
		"req":   map[string]any{"user": "ada", "items": []string{"pen", "ink"}},
		"token": guardrun.Labelled("sk-123", "secret"),
	}))
	fmt.Print(res.Document)
	var e *guardrun.Error
	if errors.As(err, &e) {
		fmt.Println(e.Name, e.Denial.Guard, e.Denial.Labels)
	}
	// Output:
	// ada wants 2 items
	// GuardError @noleak [secret]
}

// A Go function scripts and guards call as @name(args). Its result
// carries its arguments' labels; a guard sees each call as an operation.
func ExampleWithFunctions() {
	price := guardrun.Function{
		Name:   "price",
		Params: []guardrun.Param{{Name: "sku", Type: guardrun.StringType}},
		Call: func(ctx context.Context, args []guardrun.Var) (any, error) {
			prices := map[string]float64{"pen": 1.5, "ink": 4}
			p, ok := prices[args[0].Value.(string)]
			if !ok {
				return nil, fmt.Errorf("no price for %q", args[0].Value)
			}
			return p, nil
		},
	}
	src := []byte("show @price(\"ink\") * 2\nshow @price(\"gold\")\n")
	prg, err := guardrun.Compile("order.mld", src, guardrun.WithFunctions(price))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := prg.Run(context.Background())
	fmt.Print(res.Document)
	fmt.Println(err)
	// Output:
	// 8
	// order.mld:2:12: Go function @price failed: no price for "gold"
}

// Every denial, whoever decided it (a guard, a policy rule, a Go hook),
// is an *Error whose Denial says who, why, and which labels.
func ExampleDenial() {
	src := []byte(`policy @p = { defaults: { rules: ["no-secret-exfil"] }, operations: { exfil: ["net:w"] } }
var secret @key = "sk-123"
exe net:w @post(body) = ` + "`posted`" + `
show @post(@key)
`)
	prg, _ := guardrun.Compile("exfil.mld", src)
	_, err := prg.Run(context.Background())
	var e *guardrun.Error
	if errors.As(err, &e) && e.Denial != nil {
		d := e.Denial
		fmt.Println(e.Name, e.Pos.Line)
		fmt.Println(d.Action, d.Class, d.Rule, d.Labels, d.Retryable)
	}
	// Output:
	// PolicyError 4
	// deny policy defaults.rules.no-secret-exfil [secret] false
}

// WithStrictCheck refuses at Compile what `guardrun check` finds wrong:
// here a guard using a variable that does not exist, which would
// otherwise deny every operation it covers when it runs.
func ExampleWithStrictCheck() {
	src := []byte(`guard @g before op:exe = when [
  @limt > 3 => deny "too many"
  * => allow
]
`)
	_, err := guardrun.Compile("policy.mld", src, guardrun.WithStrictCheck())
	var e *guardrun.Error
	if errors.As(err, &e) {
		fmt.Println(e.Name, e.Pos)
		fmt.Println(len(e.Findings), "finding(s)")
	}
	// Output:
	// CheckError policy.mld:2:3
	// 1 finding(s)
}

// A loaded Machine decides operations from many goroutines; each decision
// takes its own per-call variables.
func ExampleOperation() {
	prg, _ := guardrun.Compile("limits.guard", []byte(`guard @budget before op:exe = when [
  @mx.op.name == "pay" && @amount > @limit => deny "over the limit"
  * => allow
]
`))
	m, err := prg.Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	for _, amount := range []int{20, 200} {
		v := m.Before(context.Background(), guardrun.Operation{
			Op:   &hooks.OperationContext{Type: "exe", Name: "pay"},
			Vars: map[string]any{"amount": amount, "limit": 100},
		})
		fmt.Printf("%d: %s %q\n", amount, v.Action, v.Reason)
	}
	// Output:
	// 20: allow ""
	// 200: deny "over the limit"
}
