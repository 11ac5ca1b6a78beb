# Reference standardised matrices from std.R of Urbano, Lima & Hanjalic (2019), for
# tests/conformance/test_standardise.py.  std.R is NOT in this repository: take it from the public repository
# julian-urbano/sigir2019-standardization, file R/std.R (commit 0f5b36b03f3eccb395e7c9e94207dc532eabe8d1,
# 3027 bytes, md5 c7044eaf76ce70560718393273fa5c08).  Made with R 4.2.2 (Debian r-base-core 4.2.2.20221110-2):
#
#   cd tests/data/std_r && Rscript make_reference.R /path/to/std.R
#
# Inputs: dl19_AP.csv (`metaeval matrices --qrels trec-dl19-passage/qrels.txt --runs
# 'trec-dl19-passage/runs/*.run.gz' --metrics AP`: 43 topics x 37 runs) and synthetic.csv (a
# constant topic, an all-zero topic, ties).  Outputs, per input NAME and method M in z N U E:
#   NAME.M.csv        every run standardised by the factors of every run (std.R's use)
#   NAME.sub.M.csv    every run standardised by the factors of the first 3 runs' columns only
# with 17 significant digits (round trip of a double).
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
methods <- list(z = std_z, N = std_N, U = std_U, E = std_E)
write_m <- function(m, topics, runs, file) {
  out <- cbind(topic = topics, matrix(sprintf("%.17g", m), nrow = nrow(m)))
  colnames(out) <- c("topic", runs)
  write.csv(out, file, row.names = FALSE, quote = FALSE)
}
for (name in c("dl19_AP", "synthetic")) {
  d <- read.csv(paste0(name, ".csv"), check.names = FALSE, colClasses = c("character"))
  topics <- d[[1]]
  x <- as.matrix(d[, -1])
  storage.mode(x) <- "double"
  runs <- colnames(d)[-1]
  for (k in names(methods)) {
    std <- methods[[k]]
    write_m(std$standardize(std$factors(x), x), topics, runs, paste0(name, ".", k, ".csv"))
    write_m(std$standardize(std$factors(x[, 1:3]), x), topics, runs, paste0(name, ".sub.", k, ".csv"))
  }
}
