package ann

// binHeap is a binary heap whose top is the element for which first is
// true against all others. It replaces container/heap on the search paths,
// where boxing every pushed element into an interface cost an allocation.
type binHeap[T any] struct {
	items []T
	first func(a, b T) bool
}

func (h *binHeap[T]) len() int { return len(h.items) }
func (h *binHeap[T]) top() T   { return h.items[0] }

func (h *binHeap[T]) push(x T) {
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

func (h *binHeap[T]) pop() T {
	x := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	if n > 0 {
		h.down(0)
	}
	return x
}

// replaceTop swaps the top for x and restores the order.
func (h *binHeap[T]) replaceTop(x T) {
	h.items[0] = x
	h.down(0)
}

func (h *binHeap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.first(h.items[i], h.items[p]) {
			return
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *binHeap[T]) down(i int) {
	n := len(h.items)
	for {
		best, l := i, 2*i+1
		if l < n && h.first(h.items[l], h.items[best]) {
			best = l
		}
		if r := l + 1; r < n && h.first(h.items[r], h.items[best]) {
			best = r
		}
		if best == i {
			return
		}
		h.items[i], h.items[best] = h.items[best], h.items[i]
		i = best
	}
}
