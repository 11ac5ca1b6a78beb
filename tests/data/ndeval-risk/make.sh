#!/bin/sh
# Regenerates this folder's reference outputs with ndeval 4.5 compiled from the snapshot named in
# README.md.  Usage: NDEVAL=/path/to/ndeval sh make.sh   (run from this folder)
set -e
D=${DIV:-../../../../shared/data/trec-web2013-diversity}
T=$(mktemp -d)
for r in 01 05 09 11 16; do gunzip -c $D/runs/div-run-$r.run.gz > $T/div-run-$r; done
gunzip -c odd-run.gz > $T/odd-run
gunzip -c odd-base.gz > $T/odd-base
out() { "$NDEVAL" "$@" | gzip -9n > "$name.ndeval.gz"; }
# risk-sensitive mode: baseline div-run-05 (omits topics 218, 236, 242), riskAlpha 0, 1, 5, 10
for r in 01 11 16; do
  for a in 0 1 5 10; do
    name=div-run-$r.base05.a$a;   out -baseline $T/div-run-05 -riskAlpha $a $D/qrels.txt $T/div-run-$r
    name=div-run-$r.base05.a$a.c; out -c -baseline $T/div-run-05 -riskAlpha $a $D/qrels.txt $T/div-run-$r
  done
done
name=div-run-05.base16.a1;    out -baseline $T/div-run-16 -riskAlpha 1 $D/qrels.txt $T/div-run-05
name=div-run-05.base16.a1.c;  out -c -baseline $T/div-run-16 -riskAlpha 1 $D/qrels.txt $T/div-run-05
name=div-run-01.base05;       out -baseline $T/div-run-05 $D/qrels.txt $T/div-run-01
name=div-run-01.a5;           out -riskAlpha 5 $D/qrels.txt $T/div-run-01
name=div-run-01.base05.a2.5;  out -riskAlpha 2.5 -baseline $T/div-run-05 $D/qrels.txt $T/div-run-01
# the other options
name=div-run-09.traditional;  out -traditional $D/qrels.txt $T/div-run-09
name=div-run-01.M10;          out -M 10 $D/qrels.txt $T/div-run-01
name=div-run-16.M3.c;         out -c -M 3 $D/qrels.txt $T/div-run-16
name=div-run-16.alpha0.3.beta0.8; out -alpha 0.3 -beta 0.8 $D/qrels.txt $T/div-run-16
name=div-run-11.alpha1;       out -alpha 1 $D/qrels.txt $T/div-run-11
name=div-run-11.beta1.M50;    out -beta 1 -M 50 $D/qrels.txt $T/div-run-11
name=div-run-16.all.c;        out -ca -traditional -M 15 -alpha 0.7 -beta 0.2 -baseline $T/div-run-11 -riskAlpha 5 $D/qrels.txt $T/div-run-16
# a run whose RANK column disagrees with its scores (ties, gaps, prefixed topic ids, a topic
# outside the qrels) against a baseline with a topic outside the qrels and missing topics
name=odd-run;                 out $D/qrels.txt $T/odd-run
name=odd-run.traditional;     out -traditional $D/qrels.txt $T/odd-run
name=odd-run.base.a1;         out -baseline $T/odd-base -riskAlpha 1 $D/qrels.txt $T/odd-run
name=odd-run.base.a1.c;       out -c -baseline $T/odd-base -riskAlpha 1 $D/qrels.txt $T/odd-run
name=odd-run.base.a10.trad.M7; out -traditional -M 7 -baseline $T/odd-base -riskAlpha 10 $D/qrels.txt $T/odd-run
rm -r $T
