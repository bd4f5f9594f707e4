"""Tables 1–5 of Avrachenkov, Dudin, Klimenok, Nain, Semenova (seed
000_5df23f3f1376a820.txt, §7), verbatim from the seed text (tabs as in the
text, ``_`` for a dash, LaTeX markup kept): reference data that computed
values are compared against, never inputs.

The seed text splits the row "3 | _ | 639.03" of Table 5 over two lines; the
parser joins a row without a value to the continuation line that follows.

>>> rows = parse(TABLE_1)
>>> len(rows), rows[5]
(15, {'modes': '3 or 1', 'thresholds': '2', 'cost': '63.54'})
>>> parse(TABLE_5)[2]
{'modes': '3', 'thresholds': '_', 'cost': '639.03'}
>>> parse(TABLE_2)[-1]["C_4"], parse(TABLE_3)[-1]["C^*"], parse(TABLE_4)[0]["g_1"]
('123.6', '309.061', '500')
"""
from __future__ import annotations

import re

TABLE_1 = r"""
possible numbers of active robots	Optimal thresholds	Optimal value of the cost criterion	
1	_	149.91	
2	_	110.0	
3	_	89.40	
4	_	130.31	
2 or 1	2	103.54	
3 or 1	2	$\boldsymbol{63.54}$	
4 or 1	1	74.47	
3 or 2	2	76.21	
4 or 2	1	86.13	
4 or 3	0	94.14	
3 or 2 or 1	2,2	63.54	
4 or 2 or 1	1,2	73.69	
4 or 3 or 1	0,2	80.50	
4 or 3 or 2	0,2	80.50	
4 or 3 or 2 or 1	0,2,2	67.52	
"""

TABLE_2 = r"""
K	j^*	C^*	C_1	C_2	C_3	C_4	R, %
1	0	147.5	244.7	233.4	187.2	258.8	21.0
2	1	96.8	199.2	174.0	128.8	194.4	24.8
3	2	79.1	172.6	140.3	105.4	160.0	24.9
4	2	68.3	158.1	121.7	94.7	140.6	27.85
5	2	63.5	149.9	110.0	89.4	130.3	28.9
6	3	60.8	144.7	102.3	86.7	124.1	29.8
7	3	59.3	141.6	97.2	85.5	120.5	30.6
8	3	58.4	138.5	93.7	85.0	118.3	31.2
9	3	57.8	137.9	91.3	84.9	117.1	31.8
10	3	57.5	137.0	89.7	85.0	116.5	32.3
20	3	57.2	137.0	86.3	87.2	120.0	33.7
30	3	57.2	137.0	86.3	87.4	123.6	33.7
"""

TABLE_3 = r"""
s	b_1	numbers of active robots	j^*	C^*	C_1	C_2	C_3	C_4	R, %
0.1	6.57	1,3	0	53.1	58.58	80.67	104.74	131.84	9.35
0.2	3.29	1,3	1	45.08	59.45	72.77	94.16	122.04	24.17
0.3	2.19	1,3	1	42.93	68.51	72.02	89.42	118.55	37.34
0.4	1.64	1,3	1	43.33	80.36	74.27	86.7	117.45	41.66
0.5	1.31	1,3	1	45.28	93.09	78.34	85.15	117.77	42.2
0.7	0.94	1,3	2	51.17	117.98	89.66	84.65	121.17	39.55
0.9	0.73	1,3	2	58.88	140.09	103.05	87.14	126.89	32.43
1	0.66	1,3	2	63.54	149.91	110	89.4	130.31	28.93
3	0.22	1,3	3	160.48	244.04	211.44	182.29	204.54	11.96
5	0.13	1,4	1	217.02	272.19	254.87	243.01	251.25	10.7
7	0.09	1,4	1	250.83	285.26	276.93	274.4	279.31	8.59
9	0.07	1,4	0	272.76	292.74	290.05	292.8	297.61	5.96
11	0.06	1,4	0	288.23	297.59	298.7	304.77	310.39	3.15
13	0.05	1,4	0	299.92	300.97	304.82	313.15	319.78	0.35
15	0.04	1	_	309.061	303.47	309.37	319.33	326.96	0
"""

TABLE_4 = r"""
s	g_1	j^*	C^*	C_1	C_2	C_3	C_4	R, %
0.01	500	3	52.07	130.02	92.47	81.28	118.93	37.16
0.1	50	3	52.41	132.22	94.24	81.99	119.99	36.08
0.2	25	2	53.83	134.55	96.17	82.79	121.17	34.98
0.3	16.7	2	55.1	136.78	98.05	83.6	122.34	34.09
0.4	12.5	2	56.36	138.9	99.88	84.41	123.51	33.23
0.5	10	2	57.6	140.93	101.67	85.24	124.67	32.43
0.7	7.1	2	60.02	144.74	105.12	86.9	126.95	30.93
0.9	5.6	2	62.38	148.25	108.42	88.57	129.21	29.57
1	5	2	63.54	149.91	110	89.4	130.31	28.93
3	1.67	1	83.6	173.68	135.36	105	149.91	20.38
5	1	1	95.64	187.76	152.48	117.52	165.21	18.62
10	0.5	1	116.47	206.98	178.08	138.25	191.33	15.75
20	0.25	0	131.1	223.17	201.46	158.66	218.9	17.37
30	0.17	0	136.67	230.45	212.45	168.67	233.25	18.97
40	0.13	0	139.97	234.54	218.83	174.63	242.04	19.85
50	0.1	0	142.15	237.18	222.99	178.58	247.97	20.4
60	0.083	0	143.72	239.03	225.91	181.39	252.25	20.77
70	0.071	0	144.9	240.38	228.08	183.5	255.47	21.04
80	0.063	0	145.81	241.42	229.75	185.13	257.99	21.24
90	0.056	0	146.55	242.24	231.08	186.44	260.01	21.4
100	0.05	0	147.16	242.91	232.15	187.51	261.67	21.52
200	0.025	0	150.08	245.97	237.19	192.58	269.62	22.07
"""

TABLE_5 = r"""
possible numbers of active robots	Optimal thresholds	Optimal value of the cost criterion		
1		666.28		
2	_	657.07		
3	_			
	_	639.03		
4	_	621.25		
1,2	0	624.97		
1,3	0	591.72		
1,4	2	563.51		
2,3	1	622.81		
2,4	2	593.29		
3,4	3	609.66		
1,2,3	0,0	591.72		
1,2,4	2,2	563.51		
1,3,4	2,2	563.51		
2,3,4	2,2	593.29		
1,2,3,4	2,2,2	563.51		
"""

# §7 in-text numbers (verbatim)
BMAP_CHARACTERISTICS = {
    "lam": ("1.28", "2.41", "3.125", "4.64"),
    "c_cor": ("-0.218", "-0.111", "0.02", "0.035"),
    "lam_g": ("0.853", "1.208", "2.5", "1.43"),
}
MEAN_SERVICE = "0.657"
MEAN_OBSOLESCENCE = "5"
C_TEXT = ("149.91", "110.0", "89.405", "130.312")
REAL_LAM = ("0.0153", "0.0307", "0.046", "0.061")
REAL_MEAN_INTERVAL = "212.03"  # "estimation of the mean value of an interval between arrivals of batches"
REAL_MEAN_SERVICE = "8.2"
REAL_SCV = "86.03"
REAL_MEAN_BATCH = "3.263389905223716"
REAL_C = ("666.28", "657.07", "639.03", "621.25")
REAL_OPTIMUM = ("563.51", "2,2,2")
DIMENSION_PRINTED = "W(1+M(R^{K-1}-1)/(R-1)); W=M=R=2: 2^{K+1}-2, K=10: 2046"

_LATEX = re.compile(r"\$\\boldsymbol\{([^}]*)\}\$")


def _clean(cell: str) -> str:
    return _LATEX.sub(r"\1", cell).strip()


def parse(table: str) -> list[dict]:
    """Rows of a table as dicts of printed strings (keys from the header;
    Tables 1 and 5 get ``modes``, ``thresholds``, ``cost``)."""
    lines = table.strip("\n").split("\n")
    header = [h for h in lines[0].split("\t") if h]
    if header[0].startswith("possible"):
        header = ["modes", "thresholds", "cost"]
    rows: list[list[str]] = []
    for line in lines[1:]:
        cells = [_clean(c) for c in line.split("\t")]
        if rows and not cells[0] and len([c for c in rows[-1] if c]) < len(header):
            rows[-1] = [rows[-1][0]] + [c for c in cells[1:]]
            continue
        rows.append(cells)
    out = []
    for cells in rows:
        cells = (cells + [""] * len(header))[: len(header)]
        out.append(dict(zip(header, cells)))
    return out
