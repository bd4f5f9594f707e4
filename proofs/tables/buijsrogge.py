"""Tables 7.1, 7.2, 8.1 and 8.3 of Buijsrogge (seed 001_046e391deba72d92.txt,
§7.4 and §8.1), verbatim from the seed text: reference data that computed
values are compared against, never inputs.

Rows are the row key (β for Tables 7.1–7.2, δ for Tables 8.1 and 8.3) then
one cell per γ; the seed text puts a stray OCR row label ("β", "ρ", "ß",
"δ", "0") before two rows of each table, which is dropped here.  All four
tables are for C = 100000 colours and K = 1000 positions.

>>> parse(TABLE_7_1)[0]
{'row': '1', '0.3': '0', '0.5': '2', '0.7': '25', '0.9': '68', '1.1': '86', '1.3': '72', '1.5': '52', '1.7': '38'}
>>> parse(TABLE_8_3)[7]["0.3"]
'4.0124e-04'
"""
from __future__ import annotations

GAMMAS = ("0.3", "0.5", "0.7", "0.9", "1.1", "1.3", "1.5", "1.7")
HEADER = "row\t" + "\t".join(GAMMAS)

# Table 7.1: number of elephant colours c (elephant: p_c >= 1/(beta K)); rows beta.
TABLE_7_1 = """
1	0	2	25	68	86	72	52	38
2	0	10	69	148	162	123	83	57
3	0	22	124	233	234	168	109	72
4	0	40	187	320	304	210	133	86
5	1	62	257	411	372	249	154	98
6	2	90	334	503	439	287	174	109
7	4	123	416	597	506	323	193	119
8	6	160	504	693	571	358	211	129
9	9	203	596	790	635	392	228	138
10	14	251	693	888	699	425	245	147
"""

# Table 7.2: probability 1 - q of the elephant colours; rows beta.
TABLE_7_2 = """
1	0	0.0027	0.0587	0.2627	0.5635	0.7866	0.8965	0.9462
2	0	0.0080	0.0889	0.3180	0.6162	0.8222	0.9184	0.9594
3	0	0.0127	0.1110	0.3524	0.6454	0.8404	0.9291	0.9655
4	0	0.0179	0.1291	0.3774	0.6655	0.8525	0.9360	0.9696
5	2.2140e-04	0.0227	0.1447	0.3978	0.6807	0.8612	0.9407	0.9722
6	4.0124e-04	0.0278	0.1587	0.4145	0.6929	0.8681	0.9443	0.9742
7	7.0655e-04	0.0329	0.1713	0.4290	0.7033	0.8737	0.9473	0.9758
8	9.7250e-04	0.0378	0.1830	0.4418	0.7119	0.8784	0.9497	0.9771
9	0.0013	0.0429	0.1939	0.4533	0.7195	0.8824	0.9517	0.9782
10	0.0019	0.0480	0.2041	0.4636	0.7262	0.8858	0.9534	0.9791
"""

# Table 8.1: number of elephant colours c in a simulation of the delta-rule; rows delta.
TABLE_8_1 = """
10	0	4	39	103	183	259	322	377
9	0	3	37	107	189	273	341	397
8	0	4	51	120	213	294	380	421
7	0	5	55	141	244	326	401	472
6	0	9	70	164	275	380	451	524
5	0	14	72	202	326	433	534	588
4	0	26	114	270	411	539	625	693
3	2	40	199	421	586	712	804	876
2	40	173	500	798	1027	1188	1231	1269
1	2162	2711	3026	3133	3034	2832	2613	2487
"""

# Table 8.3: upper bound on 1 - q: mass of the c most likely colours; rows delta.
TABLE_8_3 = """
10	0	0.0044	0.0708	0.2917	0.6260	0.8632	0.9597	0.9893
9	0	0.0036	0.0693	0.2944	0.6286	0.8657	0.9609	0.9897
8	0	0.0044	0.0789	0.3027	0.6381	0.8693	0.9631	0.9901
7	0	0.0051	0.0813	0.3145	0.6487	0.8741	0.9641	0.9909
6	0	0.0075	0.0894	0.3257	0.6579	0.8810	0.9663	0.9915
5	0	0.0098	0.0903	0.3414	0.6708	0.8866	0.9692	0.9922
4	0	0.0140	0.1076	0.3640	0.6881	0.8956	0.9717	0.9931
3	4.0124e-04	0.0179	0.1320	0.3997	0.7138	0.9061	0.9754	0.9942
2	0.0040	0.0394	0.1825	0.4541	0.7526	0.9234	0.9806	0.9955
1	0.0681	0.1627	0.3326	0.5829	0.8217	0.9473	0.9874	0.9973
"""


def parse(table: str) -> list[dict]:
    """Rows of a table as dicts keyed by ``row`` and the γ columns."""
    keys = ("row",) + GAMMAS
    out = []
    for line in table.strip().splitlines():
        cells = line.split("\t")
        if len(cells) != len(keys):
            raise ValueError(f"row {line!r} has {len(cells)} cells, expected {len(keys)}")
        out.append(dict(zip(keys, cells)))
    return out
