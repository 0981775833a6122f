# Print the named columns of a CSV file with a header row, space-separated,
# one line per data row: awk -v cols=ply,won,drawn,lost -f columns.awk FILE
# Fields may be quoted (a run name holds commas where its order does, as in
# columns:3,2,4,1). Stops with an error naming a column the header lacks, so
# that a change of a program's CSV layout fails loudly instead of comparing
# the wrong columns.

# Split the CSV line `s` into f[1..n] (quotes removed, "" read as "); returns n.
function fields(s, f,    n, i, c, q, v) {
  n = 0; v = ""; q = 0
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (q && c == "\"" && substr(s, i + 1, 1) == "\"") { v = v c; i++ }
    else if (c == "\"") q = !q
    else if (c == "," && !q) { f[++n] = v; v = "" }
    else v = v c
  }
  f[++n] = v
  return n
}
NR == 1 {
  m = fields($0, head)
  for (i = 1; i <= m; i++) at[head[i]] = i
  n = split(cols, want, ",")
  for (j = 1; j <= n; j++)
    if (!(want[j] in at)) { print "no column '" want[j] "' in " FILENAME > "/dev/stderr"; exit 1 }
  next
}
{
  fields($0, row)
  line = row[at[want[1]]]
  for (j = 2; j <= n; j++) line = line " " row[at[want[j]]]
  print line
}
