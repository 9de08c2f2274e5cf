/*
 * kube_time.c - see kube_time.h.
 *
 * Read by hand rather than with strptime/sscanf: both skip whitespace and
 * take signs and one-digit fields (`%2d` reads " 1" and "-1"), so a
 * malformed time would pass; and a log line's timestamp is not
 * NUL-terminated.
 */
#include "kube_time.h"

#include <time.h>

/* n digits at s as a number, or -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int days_in(int year, int month)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return month == 2 && leap ? 29 : days[month - 1];
}

/* The offset after the seconds and fraction: Z, or ±HH:MM, in seconds east. */
static int offset(const char *p, const char *end, long *east)
{
	int hh, mm;

	if (end - p == 1 && (*p == 'Z' || *p == 'z')) {
		*east = 0;
		return 0;
	}
	if (end - p != 6 || (*p != '+' && *p != '-') || p[3] != ':')
		return -1;
	hh = digits(p + 1, 2);
	mm = digits(p + 4, 2);
	if (hh < 0 || hh > 23 || mm < 0 || mm > 59)
		return -1;
	*east = (hh * 3600L + mm * 60L) * (*p == '-' ? -1 : 1);
	return 0;
}

int kube_time_parse(const char *s, size_t len, double *t)
{
	const char *p, *end;
	struct tm tm = { 0 };
	double frac = 0, scale = 0.1;
	int year, mon, day, hour, min, sec;
	long east;
	time_t base;

	/* YYYY-MM-DDTHH:MM:SS is 19 bytes; the shortest whole time adds a Z */
	if (!s || len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
	    s[13] != ':' || s[16] != ':')
		return -1;
	year = digits(s, 4);
	mon = digits(s + 5, 2);
	day = digits(s + 8, 2);
	hour = digits(s + 11, 2);
	min = digits(s + 14, 2);
	sec = digits(s + 17, 2);
	if (year < 0 || mon < 1 || mon > 12 || day < 1 || day > days_in(year, mon) ||
	    hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 60)
		return -1;
	p = s + 19;
	end = s + len;
	if (*p == '.') {
		const char *first = ++p;
		for (; p < end && *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
		if (p == first)
			return -1;
	}
	if (p >= end || offset(p, end, &east) < 0)
		return -1;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;	/* 60: timegm carries it into the next minute */
	base = timegm(&tm);
	if (base == (time_t)-1 && !(year == 1969 && mon == 12 && day == 31))
		return -1;
	*t = (double)base - (double)east + frac;
	return 0;
}
