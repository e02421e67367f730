// Package scrub rewrites every string a value holds: the fields of its
// structs, the elements of its slices and arrays, the values of its maps
// (keys are left as they are) and what its pointers and interfaces lead
// to. The commands use it to redact a report as a whole before it is laid
// out, so that a credential in a file's name is replaced everywhere the
// name appears, the same way, before a table can wrap it across lines.
package scrub

import "reflect"

// Strings replaces each string s reachable from v, which must be a
// pointer, with f(s). Unexported fields are left alone; a value reached
// twice (a shared pointer) is rewritten once.
func Strings(v any, f func(string) string) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	walk(rv, f, map[uintptr]bool{})
}

func walk(v reflect.Value, f func(string) string, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walk(v.Elem(), f, seen)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		walk(c, f, seen)
		if v.CanSet() {
			v.Set(c)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), f, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walk(v.Index(i), f, seen)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			walk(c, f, seen)
			v.SetMapIndex(k, c)
		}
	case reflect.String:
		if v.CanSet() {
			if s := f(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	}
}
