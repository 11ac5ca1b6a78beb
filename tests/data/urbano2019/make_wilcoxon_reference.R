# Records R's wilcox.test and t.test p-values (the conventions of ir_tests.R of Urbano, Lima &
# Hanjalic 2019) on random paired samples with and without ties and zero differences, n below and
# above 50.  Run from this folder:  Rscript make_wilcoxon_reference.R
set.seed(2019)
rows <- list()
k <- 0
for (n in c(10, 25, 49, 50, 100)) {
  for (kind in c("continuous", "ties", "zeros")) {
    for (rep in 1:4) {
      b <- round(runif(n), 4)
      e <- round(pmin(1, pmax(0, b + rnorm(n, 0.03, 0.1))), 4)
      if (kind == "ties") { b <- round(b, 1); e <- round(e, 1) }
      if (kind == "zeros") { z <- sample(n, n %/% 5); e[z] <- b[z] }
      k <- k + 1
      w1 <- suppressWarnings(wilcox.test(b, e, paired = TRUE, alternative = "less")$p.value)
      w2 <- suppressWarnings(wilcox.test(b, e, paired = TRUE, alternative = "two")$p.value)
      t1 <- t.test(b, e, paired = TRUE, alternative = "less")$p.value
      t2 <- t.test(b, e, paired = TRUE, alternative = "two")$p.value
      rows[[k]] <- data.frame(case = k, n = n, kind = kind, b = paste(sprintf("%.4f", b), collapse = " "),
                              e = paste(sprintf("%.4f", e), collapse = " "),
                              w1 = sprintf("%.17g", w1), w2 = sprintf("%.17g", w2),
                              t1 = sprintf("%.17g", t1), t2 = sprintf("%.17g", t2))
    }
  }
}
write.csv(do.call(rbind, rows), "wilcoxon_r.csv", row.names = FALSE, quote = TRUE)
cat(R.version.string, "\n")
