// Command structure measures how the files of each package refer to one
// another: for every package of the module, which file uses a name that
// another file of the same package defines, and which of those references
// run in a circle. It is the measure docs/design.md reports before and after
// a change of structure; it reads the source and runs nothing of it.
//
// Usage:
//
//	go run ./internal/cmd/structure [-files] [-group name=file,file...] [packages]
//
// With -group, the files of a package are grouped (a file in no group stands
// alone) and the references between groups are counted instead.
//
// It must not run, build or change the code it measures.
package main
