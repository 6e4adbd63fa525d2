package files

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Overlay lays documents over others, as `kubectl apply` of the over
// documents would change the base (a cluster's objects): a document of
// over replaces the base document with the same Key, in its place; the
// others are added after the base. Two over documents with the same key
// are both kept, so that the duplicate is reported as it is for files.
//
// GEP-713 "Conflict resolution": the older creationTimestamp wins. A
// replacing document without one keeps the replaced object's (apply does
// not change it); an added one is stamped with now, the newest, as it
// would be once applied. The documents of over are changed in place.
func Overlay(base, over []Document, now time.Time) []Document {
	keyOf := func(d Document) Key {
		gvk := d.Object.GroupVersionKind()
		return Key{gvk.Group, gvk.Kind, d.Object.GetNamespace(), d.Object.GetName()}
	}
	out := append([]Document(nil), base...)
	at := make(map[Key]int, len(base))
	for i, d := range base {
		at[keyOf(d)] = i
	}
	for _, d := range over {
		k := keyOf(d)
		i, ok := at[k]
		if !ok {
			if d.Object.GetCreationTimestamp().Time.IsZero() {
				d.Object.SetCreationTimestamp(metav1.NewTime(now.UTC().Truncate(time.Second)))
			}
			out = append(out, d)
			continue
		}
		if d.Object.GetCreationTimestamp().Time.IsZero() {
			d.Object.SetCreationTimestamp(out[i].Object.GetCreationTimestamp())
		}
		out[i] = d
		delete(at, k) // a second over document with this key is a duplicate
	}
	return out
}
