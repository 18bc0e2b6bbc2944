// Command godip_peer adjudicates the benchmark's movement phases with godip (github.com/zond/godip),
// the peer of benchmarks/godip_bench.py. It is built by that script against a godip checkout the
// caller names (GOPATH mode); godip itself is never part of this project.
//
// Input: the batch documents of shared/contracts/adjudicate.md, one per line, on standard input.
// Output: one JSON line: the timed round's wall and CPU seconds, and for each phase the units
// standing after the movement and the dislodged ones, for comparison with our answers.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zond/godip"
	"github.com/zond/godip/variants/classical"
)

type document struct {
	Phase   string              `json:"phase"`
	Units   map[string][]string `json:"units"`
	Centers map[string][]string `json:"centers"`
	Orders  map[string][]string `json:"orders"`
}

type outcome struct {
	Units     []string `json:"units"`
	Dislodged []string `json:"dislodged"`
}

func nation(power string) godip.Nation {
	return godip.Nation(strings.ToUpper(power[:1]) + strings.ToLower(power[1:]))
}

func unitType(letter string) godip.UnitType {
	if letter == "F" {
		return godip.Fleet
	}
	return godip.Army
}

func letter(t godip.UnitType) string {
	if t == godip.Fleet {
		return "F"
	}
	return "A"
}

// adjudicate builds the position, parses the orders and resolves the movement: the timed work.
func adjudicate(doc *document) (*outcome, error) {
	year, err := strconv.Atoi(doc.Phase[1:5])
	if err != nil {
		return nil, err
	}
	season := godip.Spring
	if doc.Phase[0] == 'F' {
		season = godip.Fall
	}
	state := classical.Blank(classical.NewPhase(year, season, godip.Movement))
	units := map[godip.Province]godip.Unit{}
	for power, lines := range doc.Units {
		for _, line := range lines {
			fields := strings.Fields(line)
			units[godip.Province(strings.ToLower(fields[1]))] = godip.Unit{Type: unitType(fields[0]), Nation: nation(power)}
		}
	}
	if err := state.SetUnits(units); err != nil {
		return nil, err
	}
	centers := map[godip.Province]godip.Nation{}
	for power, provinces := range doc.Centers {
		for _, province := range provinces {
			centers[godip.Province(strings.ToLower(province))] = nation(power)
		}
	}
	state.SetSupplyCenters(centers)
	orders := map[godip.Province]godip.Adjudicator{}
	for _, lines := range doc.Orders {
		for _, line := range lines {
			if province, order, err := classical.DATCOrder(line); err == nil {
				orders[province] = order
			}
		}
	}
	state.SetOrders(orders)
	if err := state.Next(); err != nil {
		return nil, err
	}
	result := &outcome{Units: []string{}, Dislodged: []string{}}
	for province, unit := range state.Units() {
		result.Units = append(result.Units, letter(unit.Type)+" "+strings.ToUpper(string(province)))
	}
	for province, unit := range state.Dislodgeds() {
		result.Dislodged = append(result.Dislodged, letter(unit.Type)+" "+strings.ToUpper(string(province)))
	}
	sort.Strings(result.Units)
	sort.Strings(result.Dislodged)
	return result, nil
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func main() {
	var docs []*document
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		doc := &document{}
		if err := json.Unmarshal(scanner.Bytes(), doc); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		docs = append(docs, doc)
	}
	outcomes := make([]*outcome, len(docs))
	for i, doc := range docs { // untimed: warms the graph and the parser
		result, err := adjudicate(doc)
		if err != nil {
			fmt.Fprintln(os.Stderr, doc.Phase, err)
			os.Exit(1)
		}
		outcomes[i] = result
	}
	cpu, wall := cpuSeconds(), time.Now()
	for _, doc := range docs {
		adjudicate(doc)
	}
	report := map[string]interface{}{
		"wall_seconds": time.Since(wall).Seconds(),
		"cpu_seconds":  cpuSeconds() - cpu,
		"outcomes":     outcomes,
	}
	json.NewEncoder(os.Stdout).Encode(report)
}
