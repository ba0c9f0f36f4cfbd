# expat 2.5.0's xmlwf (Debian expat source package).  No configure: the
# expat_config.h written below is what configure gives on Debian 12 for
# the options used (XML_DTD, XML_NS, getrandom, mmap).
HALF=train
DESC="expat 2.5.0 xmlwf (Debian expat; hand-written expat_config.h); TRAIN: a generated record-style XML file (attributes, short text) x4 -> TIME: a generated document-style XML (namespaces, internal entities, CDATA, comments, deep nesting) x6"
TRAIN="train.xml train.xml train.xml train.xml"
TIME="time.xml time.xml time.xml time.xml time.xml time.xml"
pgo_fetch() {
  local d
  d=$(pgo_orig expat 'libexpat-*/') || return 1
  d="$d/expat"
  [ -f "$d/lib/expat_config.h" ] || cat > "$d/lib/expat_config.h" <<'CONF'
#define BYTEORDER 1234
#define HAVE_FCNTL_H 1
#define HAVE_GETPAGESIZE 1
#define HAVE_GETRANDOM 1
#define HAVE_MMAP 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define PACKAGE_VERSION "2.5.0"
#define STDC_HEADERS 1
#define XML_CONTEXT_BYTES 1024
#define XML_DTD 1
#define XML_NS 1
#define XML_DEV_URANDOM 1
CONF
  echo "$d"
}
pgo_inputs() {
  awk 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    print "<catalog>"
    for (i = 0; i < 120000; i++) {
      printf "  <item id=\"i%d\" price=\"%d.%02d\" stock=\"%d\"><name>Item number %d</name>", i, i % 977, i % 100, (i * 7) % 31, i
      printf "<tags><t>a%d</t><t>b%d</t></tags><note>plain &amp; simple %d</note></item>\n", i % 13, i % 17, i
    }
    print "</catalog>" }' > train.xml
  awk 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    print "<!DOCTYPE book [ <!ENTITY co \"Example Company\"> <!ENTITY yr \"2026\"> <!ATTLIST sec kind CDATA \"body\"> ]>"
    print "<book xmlns=\"urn:example:book\" xmlns:x=\"urn:example:x\" xmlns:m=\"urn:example:meta\">"
    for (c = 0; c < 4500; c++) {
      printf "<chapter n=\"%d\" x:ref=\"c%d\"><title>Chapter %d of &co;</title>\n", c, c, c
      for (s = 0; s < 12; s++) {
        printf "<sec><m:info m:id=\"s%d.%d\" m:year=\"&yr;\"/><para>Text of section %d with <em>emphasis</em>, ", c, s, s
        printf "<x:link href=\"#c%d\">a link</x:link> and &lt;escaped&gt; &#x263A; chars.</para>", (c * 7 + s) % 1500
        printf "<!-- comment %d --><![CDATA[ raw <data> %d & more ]]><list><li><p>one</p></li><li><p>two <b>deep <i>deeper</i></b></p></li></list></sec>\n", s, c
      }
      print "</chapter>"
    }
    print "</book>" }' > time.xml
}
pgo_build() {
  # shellcheck disable=SC2086
  $CC $CFLAGS -DHAVE_EXPAT_CONFIG_H -I"$S/lib" -o "$1" "$S"/lib/xmlparse.c "$S"/lib/xmlrole.c \
    "$S"/lib/xmltok.c "$S"/xmlwf/xmlwf.c "$S"/xmlwf/xmlfile.c "$S"/xmlwf/codepage.c \
    "$S"/xmlwf/unixfilemap.c $LDFLAGS
}
