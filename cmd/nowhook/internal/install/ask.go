package install

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/huh"
)

// asker asks the wizard's questions: on a terminal through huh's forms,
// in accessible mode line by line. Both return ErrAborted when the user
// quits and never write anything themselves.
type asker interface {
	// pick asks for one of options; def is the default's index.
	pick(title, desc string, options []string, def int) (int, error)
	// yesNo asks a yes/no question.
	yesNo(title, desc string, def bool) (bool, error)
	// pickMany asks which of options apply; selected are the defaults.
	pickMany(title, desc string, options []string, selected []bool) ([]bool, error)
}

func newAsker(accessible bool, std IO) asker {
	if accessible {
		return &lineAsker{in: bufio.NewReader(std.In), out: std.Out, echo: !isTTY(std.In)}
	}
	return &formAsker{std: std}
}

// lineAsker asks one question per line, for screen readers and pipes: it
// says which answer is the default, asks again after an answer it cannot
// use, and fails when the input ends before the last answer (huh's own
// accessible mode panics on a bad number followed by the end of input and
// takes the end of input as the default).
type lineAsker struct {
	in   *bufio.Reader
	out  io.Writer
	n    int  // questions asked
	echo bool // repeat each answer read from a pipe, so the output reads as a dialogue
}

// errInputEnded is the end of the answers before the last question.
var errInputEnded = errors.New("the answers ended before every question was answered")

func (a *lineAsker) readLine(title string) (string, error) {
	line, err := a.in.ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		if err == io.EOF {
			fmt.Fprintln(a.out)
			return "", UsageError("%v (question %d: %s); give one answer per line, an empty line for the default", errInputEnded, a.n, title)
		}
		return "", FailedUntouched(err)
	}
	if a.echo {
		fmt.Fprintln(a.out, strings.TrimRight(line, "\r\n"))
	}
	return strings.TrimSpace(line), nil
}

func (a *lineAsker) header(title, desc string) {
	a.n++
	fmt.Fprintln(a.out)
	fmt.Fprintln(a.out, title)
	if desc != "" {
		fmt.Fprintln(a.out, desc)
	}
}

func (a *lineAsker) pick(title, desc string, options []string, def int) (int, error) {
	a.header(title, desc)
	for i, o := range options {
		mark := ""
		if i == def {
			mark = " (default)"
		}
		fmt.Fprintf(a.out, "%d. %s%s\n", i+1, o, mark)
	}
	for {
		fmt.Fprintf(a.out, "Enter a number from 1 to %d, or press Enter for %d: ", len(options), def+1)
		line, err := a.readLine(title)
		if err != nil {
			return 0, err
		}
		if line == "" {
			return def, nil
		}
		n, err := strconv.Atoi(line)
		if err == nil && n >= 1 && n <= len(options) {
			return n - 1, nil
		}
		fmt.Fprintf(a.out, "%q is not one of the numbers 1 to %d; try again.\n", line, len(options))
	}
}

func (a *lineAsker) yesNo(title, desc string, def bool) (bool, error) {
	a.header(title, desc)
	hint := "[Y/n]"
	if !def {
		hint = "[y/N]"
	}
	for {
		fmt.Fprintf(a.out, "%s (Enter for %s) ", hint, map[bool]string{true: "yes", false: "no"}[def])
		line, err := a.readLine(title)
		if err != nil {
			return false, err
		}
		switch strings.ToLower(line) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintf(a.out, "%q is neither yes nor no; answer y or n.\n", line)
	}
}

func (a *lineAsker) pickMany(title, desc string, options []string, selected []bool) ([]bool, error) {
	a.header(title, desc)
	a.n--
	out := make([]bool, len(options))
	for i, o := range options {
		yes, err := a.yesNo(o+"?", "", selected[i])
		if err != nil {
			return nil, err
		}
		out[i] = yes
	}
	return out, nil
}

// formAsker asks through huh's forms on a terminal. Yes/no questions are
// two-option lists, whose cursor stays visible without colour (NO_COLOR).
type formAsker struct{ std IO }

func (a *formAsker) run(field huh.Field) error {
	form := huh.NewForm(huh.NewGroup(field)).WithOutput(a.std.Out).WithInput(a.std.In).WithWidth(80)
	if err := form.Run(); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return ErrAborted
		}
		return FailedUntouched(err)
	}
	return nil
}

func (a *formAsker) pick(title, desc string, options []string, def int) (int, error) {
	choice := def
	var opts []huh.Option[int]
	for i, o := range options {
		opts = append(opts, huh.NewOption(o, i))
	}
	err := a.run(huh.NewSelect[int]().Title(title).Description(desc).Options(opts...).Value(&choice))
	return choice, err
}

func (a *formAsker) yesNo(title, desc string, def bool) (bool, error) {
	yes := 0
	if !def {
		yes = 1
	}
	i, err := a.pick(title, desc, []string{"Yes", "No"}, yes)
	return i == 0, err
}

func (a *formAsker) pickMany(title, desc string, options []string, selected []bool) ([]bool, error) {
	var chosen []int
	var opts []huh.Option[int]
	for i, o := range options {
		opts = append(opts, huh.NewOption(o, i).Selected(selected[i]))
		if selected[i] {
			chosen = append(chosen, i)
		}
	}
	err := a.run(huh.NewMultiSelect[int]().Title(title).Description(desc).Options(opts...).Value(&chosen))
	out := make([]bool, len(options))
	for _, i := range chosen {
		out[i] = true
	}
	return out, err
}
