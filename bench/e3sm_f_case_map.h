/*
 * e3sm_f_case_map.h: E3SM's F case decomposition on 16 ranks, for bench/blocks.c.
 *
 * From the E3SM-IO benchmark (the Parallel-NetCDF/E3SM-IO repository, datasets/
 * map_f_case_16p.h5, commit 53a882eb94ba660acc4e6756a1f3411380f5d04a), made by its
 * dat2decomp from an E3SM F-case run on 16 ranks (ncol 866, lev 72). That file holds three
 * maps; this is map D2 (ncol): each rank's one-element runs of the 866 columns, in the
 * order E3SM gives them (not sorted), 52-56 a rank. Map D3 (lev x ncol, 3744-4032 runs a
 * rank) is D2 at each of the 72 levels, level after level (checked against the file:
 * D3 of rank p = {lev * 866 + c : lev in 0..71, c in D2 of p}), so it is not copied. The
 * F case's h0 file has 63 (time, lev, ncol) and 321 (time, ncol) float variables a step.
 *
 * Its licence, E3SM-IO's COPYRIGHT, which asks that it go with every copy:
 *
 * Copyright (c) 2018 Northwestern University and Argonne National Laboratory
 * All rights reserved.
 *
 * Portions of this software were developed by the Unidata Program at the
 * University Corporation for Atmospheric Research.
 *
 * Access and use of this software shall impose the following obligations and
 * understandings on the user. The user is granted the right, without any fee or
 * cost, to use, copy, modify, alter, enhance and distribute this software, and
 * any derivative works thereof, and its supporting documentation for any purpose
 * whatsoever, provided that this entire notice appears in all copies of the
 * software, derivative works and supporting documentation.  Further, Northwestern
 * University and Argonne National Laboratory request that the user credit
 * Northwestern University and Argonne National Laboratory in any publications
 * that result from the use of this software or in any product that includes this
 * software.  The names Northwestern University and Argonne National Laboratory,
 * however, may not be used in any advertising or publicity to endorse or promote
 * any products or commercial entity unless specific written permission is
 * obtained from Northwestern University and Argonne National Laboratory. The user
 * also understands that Northwestern University and Argonne National Laboratory
 * are not obligated to provide the user with any support, consulting, training or
 * assistance of any kind with regard to the use, operation and performance of
 * this software nor to provide the user with any updates, revisions, new versions
 * or "bug fixes."
 *
 * THIS SOFTWARE IS PROVIDED BY NORTHWESTERN UNIVERSITY AND ARGONNE NATIONAL
 * LABORATORY "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT
 * LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
 * PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL NORTHWESTERN UNIVERSITY
 * AND ARGONNE NATIONAL LABORATORY BE LIABLE FOR ANY SPECIAL, INDIRECT OR
 * CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE,
 * DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS
 * ACTION, ARISING OUT OF OR IN CONNECTION WITH THE ACCESS, USE OR PERFORMANCE OF
 * THIS SOFTWARE.
 */
#ifndef DAH5_BENCH_E3SM_F_CASE_MAP_H
#define DAH5_BENCH_E3SM_F_CASE_MAP_H

enum { E3SM_RANKS = 16, E3SM_NCOL = 866, E3SM_NLEV = 72, E3SM_D3_VARS = 63 };

/* How many runs each of the 16 ranks has; its runs follow the previous ranks' in
 * E3SM_D2_OFFSETS. */
static const int E3SM_D2_NREQS[E3SM_RANKS] = {
    56, 56, 55, 53, 56, 53, 52, 54, 52, 55, 52, 56, 52, 56, 52, 56,
};

/* The column of each run (each one element long). */
static const int E3SM_D2_OFFSETS[E3SM_NCOL] = {
    2, 66, 130, 194, 258, 322, 386, 450, 514, 578, 642, 706, 770, 834, 3, 67,
    131, 195, 259, 323, 387, 451, 515, 579, 643, 707, 771, 835, 4, 68, 132, 196,
    260, 324, 388, 452, 516, 580, 644, 708, 772, 836, 7, 71, 135, 199, 263, 327,
    391, 455, 519, 583, 647, 711, 775, 839, 16, 80, 144, 208, 272, 336, 400, 464,
    528, 592, 656, 720, 784, 848, 17, 81, 145, 209, 273, 337, 401, 465, 529, 593,
    657, 721, 785, 849, 18, 82, 146, 210, 274, 338, 402, 466, 530, 594, 658, 722,
    786, 850, 19, 83, 147, 211, 275, 339, 403, 467, 531, 595, 659, 723, 787, 851,
    28, 92, 156, 220, 284, 348, 412, 476, 540, 604, 668, 732, 796, 860, 32, 96,
    160, 224, 288, 352, 416, 480, 544, 608, 672, 736, 800, 864, 33, 97, 161, 225,
    289, 353, 417, 481, 545, 609, 673, 737, 801, 865, 34, 98, 162, 226, 290, 354,
    418, 482, 546, 610, 674, 738, 802, 0, 64, 128, 192, 256, 320, 384, 448, 512,
    576, 640, 704, 768, 832, 39, 103, 167, 231, 295, 359, 423, 487, 551, 615, 679,
    743, 807, 40, 104, 168, 232, 296, 360, 424, 488, 552, 616, 680, 744, 808, 41,
    105, 169, 233, 297, 361, 425, 489, 553, 617, 681, 745, 809, 15, 79, 143, 207,
    271, 335, 399, 463, 527, 591, 655, 719, 783, 847, 20, 84, 148, 212, 276, 340,
    404, 468, 532, 596, 660, 724, 788, 852, 21, 85, 149, 213, 277, 341, 405, 469,
    533, 597, 661, 725, 789, 853, 22, 86, 150, 214, 278, 342, 406, 470, 534, 598,
    662, 726, 790, 854, 1, 65, 129, 193, 257, 321, 385, 449, 513, 577, 641, 705,
    769, 833, 52, 116, 180, 244, 308, 372, 436, 500, 564, 628, 692, 756, 820, 53,
    117, 181, 245, 309, 373, 437, 501, 565, 629, 693, 757, 821, 54, 118, 182, 246,
    310, 374, 438, 502, 566, 630, 694, 758, 822, 58, 122, 186, 250, 314, 378, 442,
    506, 570, 634, 698, 762, 826, 59, 123, 187, 251, 315, 379, 443, 507, 571, 635,
    699, 763, 827, 60, 124, 188, 252, 316, 380, 444, 508, 572, 636, 700, 764, 828,
    63, 127, 191, 255, 319, 383, 447, 511, 575, 639, 703, 767, 831, 13, 77, 141,
    205, 269, 333, 397, 461, 525, 589, 653, 717, 781, 845, 14, 78, 142, 206, 270,
    334, 398, 462, 526, 590, 654, 718, 782, 846, 43, 107, 171, 235, 299, 363, 427,
    491, 555, 619, 683, 747, 811, 44, 108, 172, 236, 300, 364, 428, 492, 556, 620,
    684, 748, 812, 46, 110, 174, 238, 302, 366, 430, 494, 558, 622, 686, 750, 814,
    47, 111, 175, 239, 303, 367, 431, 495, 559, 623, 687, 751, 815, 55, 119, 183,
    247, 311, 375, 439, 503, 567, 631, 695, 759, 823, 56, 120, 184, 248, 312, 376,
    440, 504, 568, 632, 696, 760, 824, 10, 74, 138, 202, 266, 330, 394, 458, 522,
    586, 650, 714, 778, 842, 11, 75, 139, 203, 267, 331, 395, 459, 523, 587, 651,
    715, 779, 843, 12, 76, 140, 204, 268, 332, 396, 460, 524, 588, 652, 716, 780,
    844, 57, 121, 185, 249, 313, 377, 441, 505, 569, 633, 697, 761, 825, 48, 112,
    176, 240, 304, 368, 432, 496, 560, 624, 688, 752, 816, 49, 113, 177, 241, 305,
    369, 433, 497, 561, 625, 689, 753, 817, 50, 114, 178, 242, 306, 370, 434, 498,
    562, 626, 690, 754, 818, 51, 115, 179, 243, 307, 371, 435, 499, 563, 627, 691,
    755, 819, 23, 87, 151, 215, 279, 343, 407, 471, 535, 599, 663, 727, 791, 855,
    25, 89, 153, 217, 281, 345, 409, 473, 537, 601, 665, 729, 793, 857, 26, 90,
    154, 218, 282, 346, 410, 474, 538, 602, 666, 730, 794, 858, 27, 91, 155, 219,
    283, 347, 411, 475, 539, 603, 667, 731, 795, 859, 35, 99, 163, 227, 291, 355,
    419, 483, 547, 611, 675, 739, 803, 36, 100, 164, 228, 292, 356, 420, 484, 548,
    612, 676, 740, 804, 37, 101, 165, 229, 293, 357, 421, 485, 549, 613, 677, 741,
    805, 38, 102, 166, 230, 294, 358, 422, 486, 550, 614, 678, 742, 806, 5, 69,
    133, 197, 261, 325, 389, 453, 517, 581, 645, 709, 773, 837, 6, 70, 134, 198,
    262, 326, 390, 454, 518, 582, 646, 710, 774, 838, 8, 72, 136, 200, 264, 328,
    392, 456, 520, 584, 648, 712, 776, 840, 9, 73, 137, 201, 265, 329, 393, 457,
    521, 585, 649, 713, 777, 841, 42, 106, 170, 234, 298, 362, 426, 490, 554, 618,
    682, 746, 810, 45, 109, 173, 237, 301, 365, 429, 493, 557, 621, 685, 749, 813,
    61, 125, 189, 253, 317, 381, 445, 509, 573, 637, 701, 765, 829, 62, 126, 190,
    254, 318, 382, 446, 510, 574, 638, 702, 766, 830, 24, 88, 152, 216, 280, 344,
    408, 472, 536, 600, 664, 728, 792, 856, 29, 93, 157, 221, 285, 349, 413, 477,
    541, 605, 669, 733, 797, 861, 30, 94, 158, 222, 286, 350, 414, 478, 542, 606,
    670, 734, 798, 862, 31, 95, 159, 223, 287, 351, 415, 479, 543, 607, 671, 735,
    799, 863,
};

#endif
