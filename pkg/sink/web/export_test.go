package web

// Deletion is deletion, for the tests of package web_test.
var Deletion = deletion
