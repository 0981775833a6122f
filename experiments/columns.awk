# Print the named columns of a CSV file with a header row, space-separated,
# one line per data row: awk -F, -v cols=ply,won,drawn,lost -f columns.awk FILE
# Stops with an error naming a column the header lacks, so that a change of a
# program's CSV layout fails loudly instead of comparing the wrong columns.
NR == 1 {
  for (i = 1; i <= NF; i++) at[$i] = i
  n = split(cols, want, ",")
  for (j = 1; j <= n; j++)
    if (!(want[j] in at)) { print "no column '" want[j] "' in " FILENAME > "/dev/stderr"; exit 1 }
  next
}
{
  line = $(at[want[1]])
  for (j = 2; j <= n; j++) line = line " " $(at[want[j]])
  print line
}
