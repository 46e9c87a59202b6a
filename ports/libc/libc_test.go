package libc_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/ports/libc"
)

func TestLookup(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		name     string
		params   []libc.Param
		variadic bool
		result   string
	}{
		{"strlen", []libc.Param{{"s", "const char *"}}, false, ""},
		{"printf@plt", []libc.Param{{"format", "const char *"}}, true, ""},
		{"strtod@GLIBC_2.2.5", []libc.Param{{"nptr", "const char *"}, {"endptr", "char **"}}, false, "double"},
		{"pow", []libc.Param{{"x", "double"}, {"y", "double"}}, false, "double"},
		{"__vsnprintf_chk", []libc.Param{{"str", "char *"}, {"maxlen", "size_t"}, {"flag", "int"}, {"slen", "size_t"},
			{"format", "const char *"}, {"ap", "va_list"}}, false, ""},
		{"execl", []libc.Param{{"pathname", "const char *"}, {"arg", "const char *"}}, true, ""},
		{"memcpy@plt", []libc.Param{{"dest", "void *"}, {"src", "const void *"}, {"n", "size_t"}}, false, ""},
		{"qsort", []libc.Param{{"base", "void *"}, {"nmemb", "size_t"}, {"size", "size_t"}, {"compar", "void *"}}, false, "void"},
		{"abort", nil, false, "void"},
		{"__stdio_common_vsprintf", []libc.Param{{"options", "unsigned long long"}, {"str", "char *"}, {"size", "size_t"},
			{"format", "const char *"}, {"locale", "_locale_t"}, {"ap", "va_list"}}, false, ""},
		{"ioctl", []libc.Param{{"fd", "int"}, {"request", "unsigned long"}}, true, ""},
	} {
		fn, ok := libc.Lookup(tc.name)
		is.True(ok)
		is.Equal(fn.Params, tc.params)
		is.Equal(fn.Variadic, tc.variadic)
		is.Equal(fn.Result, tc.result)
	}
	for _, name := range []string{"mallocx", "puts+0x8@plt", "", "@plt"} {
		_, ok := libc.Lookup(name)
		is.True(!ok)
	}
}
