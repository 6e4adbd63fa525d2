//go:build !linux

package thp

import "errors"

// advise has nothing to ask outside Linux; mode is "" there, so Reserve
// does not call it.
func advise(addr, n uintptr) error { return errors.ErrUnsupported }
