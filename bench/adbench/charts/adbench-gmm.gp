# adbench: time(derivative) / time(ADBench objective) for gmm
$tool0 << EOD
0 4.20163
1 2.47873
2 2.73845
3 4.15157
4 3.546
5 2.46658
6 2.66761
EOD
$tool1 << EOD
0 2.00823
1 3.60896
2 5.26035
3 11.6269
4 2.47406
5 3.56548
6 5.19933
EOD
$tool2 << EOD
0 7.66081
1 21.3887
2 32.7622
4 6.7843
EOD
$tool3 << EOD
0 43.8965
1 3314.43
2 23159.4
3 430780
4 60.1438
5 3306.35
6 23084.8
EOD
set terminal pngcairo size 720,440 font ",10"
set output "/tmp/abo2/adbench-gmm.png"
set title "gmm: time(derivative) / time(ADBench's C objective)"
set logscale y
set ylabel "ratio (log scale)"
set xlabel "size"
set key outside right
set grid ytics
set offsets 0.3, 0.3, 0, 0
set bmargin 6
set xtics rotate by -30 ("d2 K5 n1000" 0, "d10 K25 n1000" 1, "d20 K50 n1000" 2, "d64 K100 n1000" 3, "d2 K5 n10000" 4, "d10 K25 n10000" 5, "d20 K50 n10000" 6)
plot $tool0 using 1:2 with linespoints pt 4 title "chad", $tool1 using 1:2 with linespoints pt 5 title "chad (port)", $tool2 using 1:2 with linespoints pt 6 title "ADOL-C", $tool3 using 1:2 with linespoints pt 7 title "finite differences"
