package printer

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// A List printed item by item is byte for byte the List printed whole by
// go-yaml or encoding/json, in both formats: long strings wrap where they wrap in the whole document,
// empty lists and maps, numbers of every kind, keys that need quoting.
// itemsAtOnce is a batch of items: the Lists below span several.
const itemsAtOnce = 64

func TestPrintListIsPrintWhole(t *testing.T) {
	for name, items := range listCases() {
		for _, format := range []string{YAML, JSON} {
			t.Run(name+"/"+format, func(t *testing.T) {
				l := List(items)
				var whole, list bytes.Buffer
				reference := goYAML
				if format == JSON {
					reference = marshalIndent
				}
				if err := reference(&whole, l); err != nil {
					t.Fatal(err)
				}
				if err := Print(&list, l, format); err != nil {
					t.Fatal(err)
				}
				if whole.String() != list.String() {
					t.Errorf("item by item differs from whole:\n--- whole\n%s\n--- item by item\n%s", whole.String(), list.String())
				}
			})
		}
	}
}

// TestItemsAsItem checks that items rendered on every core (Items) are
// the bytes of Item called for each in turn: nil items left out, on more
// items than a batch, after and before items written by Item.
func TestItemsAsItem(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	cases := listCases()
	var many []any
	for range 3 {
		many = append(many, cases["random"]...)
		many = append(many, cases["mixed"]...)
	}
	for len(many) < 3*itemsAtOnce*4 {
		many = append(many, many...)
	}
	cases["more than a batch"] = many
	cases["nil only"] = []any{nil, nil}
	var large []any // items past the emitter's 32 KB buffer
	for i := range 5 {
		m := map[string]any{}
		for j := range 2000 * i {
			m[fmt.Sprintf("key-%05d", j)] = strings.Repeat("v", j%50)
		}
		large = append(large, map[string]any{"i": i, "m": m})
	}
	cases["large items"] = large
	r := rand.New(rand.NewPCG(3, 4))
	for name, items := range cases {
		var holes []any // items with nils among them
		for _, it := range items {
			for r.IntN(3) == 0 {
				holes = append(holes, nil)
			}
			holes = append(holes, it)
		}
		for _, format := range []string{YAML, JSON} {
			for _, before := range []int{0, 1} {
				t.Run(fmt.Sprintf("%s/%s/%d before", name, format, before), func(t *testing.T) {
					var want, got bytes.Buffer
					seq, err := NewListWriter(&want, format)
					if err != nil {
						t.Fatal(err)
					}
					par, _ := NewListWriter(&got, format)
					for i, it := range holes {
						if it != nil || i < before {
							if err := seq.Item(it); err != nil {
								t.Fatal(err)
							}
						}
					}
					for i := range min(before, len(holes)) {
						if err := par.Item(holes[i]); err != nil {
							t.Fatal(err)
						}
					}
					rest := holes[min(before, len(holes)):]
					if err := par.Items(len(rest), func(i int) any { return rest[i] }); err != nil {
						t.Fatal(err)
					}
					if err := seq.Close(); err != nil {
						t.Fatal(err)
					}
					if err := par.Close(); err != nil {
						t.Fatal(err)
					}
					if want.String() != got.String() {
						t.Errorf("Items differs from Item:\n--- Item\n%s\n--- Items\n%s", want.String(), got.String())
					}
				})
			}
		}
	}
}

// listCases are Lists' items of every sort: long strings that wrap,
// empty lists and maps, numbers of every kind, keys that need quoting.
func listCases() map[string][]any {
	type typed struct {
		Name    string         `json:"name"`
		Message string         `json:"message,omitempty"`
		Count   int            `json:"count"`
		Spec    map[string]any `json:"spec,omitempty"`
	}
	long := strings.Repeat("superseded by team-a/policy in 3 of 4 contexts (fields /a/b, /c) ", 4)
	cases := map[string][]any{
		"empty":     {},
		"one typed": {typed{Name: "a", Message: long, Count: 3}},
		"mixed": {
			typed{Name: "a", Spec: map[string]any{"x": []any{}, "y": map[string]any{}, "z": nil}},
			map[string]any{"kind": "Thing", "n": 1.5, "big": uint64(1 << 63), "neg": -7, "s": "yes", "k: v": "quoted key", "e": ""},
			"a bare string item: with a colon",
			[]any{1, "two", map[string]any{"three": long}},
		},
	}
	r := rand.New(rand.NewPCG(1, 2))
	var random []any
	for i := range 50 {
		m := map[string]any{"i": i}
		for j := range r.IntN(6) {
			m[fmt.Sprintf("k%d", j)] = strings.Repeat("word ", r.IntN(40))
		}
		random = append(random, map[string]any{"nested": m, "list": []any{m, long[:r.IntN(len(long))]}})
	}
	cases["random"] = random
	// Items that end in a block scalar keeping its line breaks (|+): the
	// next item, and the List's kind, start on the line after them.
	cases["kept line breaks"] = []any{
		map[string]any{"message": "two lines\n\n"},
		map[string]any{"message": "one\n"},
		"a bare item\n\n\n",
		map[string]any{"z": map[string]any{"message": "x\ny\n\n"}},
	}
	// The same with YAML 1.1's other line breaks last: a part ending
	// on one ends at column 0 as on a line feed (endsOnBreak).
	for _, br := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		cases["kept line breaks"] = append(cases["kept line breaks"],
			map[string]any{"message": "two lines\n\n" + br}, "a bare item\n"+br, "a line\n"+br+"\n")
	}
	return cases
}

// TestItemsStopsAtTheFirstError: an item that does not encode (a
// channel), in the first, a middle or the last batch, ends the List
// there with its error, the batch after it being rendered meanwhile:
// what was written, closed, is the List of the items before it.
func TestItemsStopsAtTheFirstError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	items := listCases()["random"]
	for len(items) < 4*itemsAtOnce*2 {
		items = append(items, items...)
	}
	for _, format := range []string{YAML, JSON} {
		for _, bad := range []int{0, itemsAtOnce*2 + 5, len(items) - 1} {
			t.Run(fmt.Sprintf("%s/item %d", format, bad), func(t *testing.T) {
				at := func(i int) any {
					if i == bad || i == bad+3 {
						return map[string]any{"c": make(chan int)}
					}
					return items[i]
				}
				// The items before it, by Items (which TestItemsAsItem
				// holds to Item's bytes): Item, failing, leaves the start
				// of the bad item in its emitter.
				var want, got bytes.Buffer
				seq, _ := NewListWriter(&want, format)
				if err := seq.Items(bad, at); err != nil {
					t.Fatal(err)
				}
				if err := seq.Close(); err != nil {
					t.Fatal(err)
				}
				one, _ := NewListWriter(io.Discard, format)
				wantErr := one.Item(at(bad))
				par, _ := NewListWriter(&got, format)
				err := par.Items(len(items), at)
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Fatalf("Items: %v, want the error of Item: %v", err, wantErr)
				}
				if err := par.Close(); err != nil {
					t.Fatal(err)
				}
				if want.String() != got.String() {
					t.Errorf("closed after the error, Items wrote %d bytes, not the %d of the items before it", got.Len(), want.Len())
				}
			})
		}
	}
}

// TestItemsByReusesItsItems: a worker's items made in one memory, each
// overwriting the last, print as items of their own do: ItemsBy renders
// each before it asks its worker for the next, in a batch and from one
// batch to the next, and keeps one worker per goroutine for the List.
func TestItemsByReusesItsItems(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	type record struct {
		Name  string            `json:"name"`
		Lines []string          `json:"lines"`
		Attrs map[string]string `json:"attrs,omitempty"`
	}
	make := func(i int, into *record) *record {
		into.Name = fmt.Sprintf("item-%d", i)
		into.Lines = into.Lines[:0]
		for j := range i%5 + 1 {
			into.Lines = append(into.Lines, strings.Repeat("word ", 3*j+i%17))
		}
		clear(into.Attrs)
		if i%3 == 0 {
			if into.Attrs == nil {
				into.Attrs = map[string]string{}
			}
			into.Attrs["third"] = fmt.Sprint(i / 3)
		}
		return into
	}
	n := 5*itemsAtOnce*2 + 7 // five batches and part of a sixth
	for _, format := range []string{YAML, JSON} {
		t.Run(format, func(t *testing.T) {
			var want, got bytes.Buffer
			fresh, _ := NewListWriter(&want, format)
			if err := fresh.Items(n, func(i int) any {
				if i%11 == 4 {
					return nil
				}
				return make(i, new(record))
			}); err != nil {
				t.Fatal(err)
			}
			var workers atomic.Int32
			reused, _ := NewListWriter(&got, format)
			if err := reused.ItemsBy(n, func() func(int) any {
				workers.Add(1)
				var r record
				return func(i int) any {
					if i%11 == 4 {
						return nil
					}
					return make(i, &r)
				}
			}); err != nil {
				t.Fatal(err)
			}
			for _, w := range []*ListWriter{fresh, reused} {
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if want.String() != got.String() {
				t.Errorf("items made in one memory print differently:\n--- fresh\n%.2000s\n--- reused\n%.2000s", want.String(), got.String())
			}
			if w := workers.Load(); w < 1 || w > 2 {
				t.Errorf("%d workers for a List rendered by 2 goroutines, want one each", w)
			}
		})
	}
}
