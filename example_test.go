package guardrun_test

import (
	"context"
	"fmt"

	"github.com/guardrun/guardrun"
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
