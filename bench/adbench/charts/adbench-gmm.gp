# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 3.33129
1 2.57816
2 2.74442
3 7.73797
4 3.19098
5 2.59413
6 2.71495
EOD
$tool1 << EOD
0 3.08255
1 2.54888
2 2.61589
3 3.33524
4 2.98428
5 2.50599
6 2.68793
EOD
$tool2 << EOD
0 2.35275
1 3.92478
2 5.66608
3 19.7127
4 2.46621
5 3.92989
6 5.59102
EOD
$tool3 << EOD
0 6.49851
1 28.3439
2 40.3302
4 6.71701
EOD
$tool4 << EOD
0 54.7514
1 3287.12
2 23301.2
3 426845
4 60.1067
5 3305.63
6 23170.7
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/b2/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad, subnormals flushed", $tool2 using 1:2 with linespoints pt 6 title "chad (port)", $tool3 using 1:2 with linespoints pt 7 title "ADOL-C", $tool4 using 1:2 with linespoints pt 8 title "finite differences"
