(function(){
function $(i){return document.getElementById(i);}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
if(text!==undefined&&text!==null)e.textContent=text;return e;}
var D=JSON.parse($('data').textContent),L=JSON.parse($('labels').textContent),COLS=[];
D.labs.forEach(function(l,li){l.steps.forEach(function(s,si){COLS.push(li+'-'+si);});});
var root=document.documentElement,ui=root.getAttribute('data-ui'),mode='learner',opened=null;
function t(k,a){var s=(L[ui]&&L[ui][k])||L.en[k]||k;if(a)for(var n in a)s=s.split('{'+n+'}').join(a[n]);
return s;}
function relabel(){document.querySelectorAll('[data-i18n]').forEach(function(e){var a=e.getAttribute('data-args');
var s=t(e.getAttribute('data-i18n'),a?JSON.parse(a):null);
if(e.hasAttribute('data-title'))e.title=s;else e.textContent=s;});
document.querySelectorAll('th[data-st]').forEach(function(e){var p=e.getAttribute('data-st').split('-');
var st=D.labs[+p[0]].steps[+p[1]];e.title=st.titles[ui]||st.title;});
document.querySelectorAll('[data-stt]').forEach(function(e){var p=e.getAttribute('data-stt').split('-');
var st=D.labs[+p[0]].steps[+p[1]];e.textContent=st.titles[ui]||st.title;});
nameCells();}
function cellName(b,h){var p=b.getAttribute('data-c').split(' ').map(Number),td=b.parentNode;
if(p.length===1)return t('cell_host',{learner:h.n,status:t(h.e.k)+' \u2014 '+t('env_error')});
var lab=D.labs[p[1]];if(p.length===2)return t('cell_lab',{learner:h.n,lab:lab.id,status:t('lab_error')});
if(td.classList.contains('s-NOT_STARTED'))return t('cell_lab',{learner:h.n,lab:lab.id,status:t('NOT_STARTED')});
var st=lab.steps[p[2]],res=h.s[p[1]][p[2]];
return t('cell',{learner:h.n,lab:lab.id,step:st.step,title:st.titles[ui]||st.title,status:t(res[0]),
passed:b.textContent.trim().split(' ').pop()});}
function nameCells(){rows.forEach(function(tr){var h=D.hosts[+tr.getAttribute('data-i')];
tr.querySelectorAll('button.c').forEach(function(b){b.setAttribute('aria-label',cellName(b,h));});
var n=tr.querySelector('button.hn');if(n)n.setAttribute('aria-label',h.n+': '+t('learner_history'));});}
function setLang(l){if(!L[l])return;ui=l;root.setAttribute('data-ui',l);root.lang=l;relabel();if(opened)show(opened);}
var tbody=$('rows'),rows=[].slice.call(tbody.rows),fShow=$('f-show'),fStep=$('f-step'),fSort=$('f-sort'),
fName=$('f-name');
function has(r,s){return (' '+r.getAttribute('data-has')+' ').indexOf(' '+s+' ')>=0;}
function chg(r){return r.getAttribute('data-chg');}
var SHOW={f_all:function(){return true;},
f_attention:function(r){return has(r,'HOST')||has(r,'ERROR')||has(r,'FAIL');},
f_errors:function(r){return has(r,'HOST')||has(r,'ERROR');},
f_failing:function(r){return has(r,'FAIL');},
f_not_started:function(r){return has(r,'NOT_STARTED');},f_pending:function(r){return has(r,'PENDING');},
f_progressed:function(r){return chg(r)==='progressed'||chg(r)==='mixed';},
f_regressed:function(r){return chg(r)==='regressed'||chg(r)==='mixed';},
f_complete:function(r){return r.getAttribute('data-has')==='PASS';}};
function num(r,a){return +r.getAttribute(a);}
function unscored(a,b){return (a.getAttribute('data-score')==='')-(b.getAttribute('data-score')==='');}
var SORT={s_name:function(a,b){return num(a,'data-i')-num(b,'data-i');},
s_name_desc:function(a,b){return num(b,'data-i')-num(a,'data-i');},
s_errors:function(a,b){return num(b,'data-sev')-num(a,'data-sev')||num(a,'data-score')-num(b,'data-score')
||num(a,'data-i')-num(b,'data-i');},
s_score_asc:function(a,b){return unscored(a,b)||num(a,'data-score')-num(b,'data-score')||num(a,'data-i')-num(b,'data-i');},
s_score_desc:function(a,b){return unscored(a,b)||num(b,'data-score')-num(a,'data-score')||num(a,'data-i')-num(b,'data-i');},
s_progress:function(a,b){return num(b,'data-up')-num(a,'data-up')||num(a,'data-i')-num(b,'data-i');},
s_stuck:function(a,b){return first(a)-first(b)||num(a,'data-i')-num(b,'data-i');}};
function notPassing(r,k){return (' '+r.getAttribute('data-fail')+' ').indexOf(' '+k+' ')>=0;}
function byStep(k){return function(a,b){return notPassing(b,k)-notPassing(a,k)||num(a,'data-i')-num(b,'data-i');};}
function first(r){var f=r.getAttribute('data-fail');return has(r,'HOST')?-1:f?COLS.indexOf(f.split(' ')[0]):COLS.length;}
var only=null,sortKey=null;
var REVERSE={s_name:'s_name_desc',s_score_asc:'s_score_desc',s_progress:null};
function apply(){var keep=SHOW[fShow.value]||SHOW.f_all,step=fStep.value,q=fName.value.trim().toLowerCase(),n=0;
rows.forEach(function(r){var ok=keep(r)&&(!step||(' '+r.getAttribute('data-fail')+' ').indexOf(' '+step+' ')>=0)
&&(!q||r.getAttribute('data-name').toLowerCase().indexOf(q)>=0)&&(!only||only.indexOf(r.getAttribute('data-i'))>=0);
r.hidden=!ok;if(ok)n++;});
var key=sortKey||fSort.value;
rows.slice().sort(SORT[key]||(key.indexOf('st:')===0?byStep(key.slice(3)):SORT.s_name)).forEach(function(r){tbody.appendChild(r);});
document.querySelectorAll('button.sort').forEach(function(b){var s=b.getAttribute('data-sort');
b.parentNode.setAttribute('aria-sort',key===s?'ascending':key===REVERSE[s]?'descending':'none');});
$('count').textContent=n+' / '+rows.length;
document.querySelectorAll('td.rate').forEach(function(c){c.classList.toggle('sel',c.getAttribute('data-step')===step);});
if(opened)close();}
[fShow,fStep].forEach(function(s){s.addEventListener('change',apply);});
fSort.addEventListener('change',function(){sortKey=null;apply();});
fName.addEventListener('input',apply);
$('ui-lang').addEventListener('change',function(){setLang(this.value);});
function pick(v,h){if(typeof v==='string')return [v,mode==='page'&&h.l!==ui];
var i=D.langs.indexOf(mode==='page'?ui:h.l);return [v[i<0?0:i],false];}
function worstFirst(ids){return ids.slice().sort(function(a,b){return D.sev[D.rows[b][1]]-D.sev[D.rows[a][1]];});}
var pop=$('pop');
function keyed(row,keys){[].forEach.call(row.cells,function(c,i){c.setAttribute('data-k',t(keys[i]));});}
function historyTable(h){var tb=el('table','checks'),tr=el('tr'),th=el('thead'),body=el('tbody');
['step','status','first_passed'].forEach(function(k){tr.appendChild(el('th',null,t(k)));});th.appendChild(tr);tb.appendChild(th);
D.labs.forEach(function(lab,li){var res=h.s[li],fp=h.f[li];if(!res||!fp)return;lab.steps.forEach(function(st,si){
var step=res[si];if(!step)return;var row=el('tr');
row.appendChild(el('td',null,lab.id+' '+st.step+': '+(st.titles[mode==='page'?ui:h.l]||st.title)));
row.appendChild(el('td','s-'+step[0],D.sym[step[0]]+' '+t(step[0])));
row.appendChild(el('td',null,fp[si]>=0?D.times[fp[si]]:t('not_yet')));keyed(row,['step','status','first_passed']);
body.appendChild(row);});});
tb.appendChild(body);return tb;}
function show(b){var hist=b.hasAttribute('data-h'),p=b.getAttribute(hist?'data-h':'data-c').split(' ').map(Number),h=D.hosts[p[0]];
pop.textContent='';var x=el('button','x','\u00d7');x.type='button';x.title=t('close');
x.addEventListener('click',close);pop.appendChild(x);
var head=el('h3');head.id='pop-h';head.appendChild(document.createTextNode(h.n+' '));pop.appendChild(head);
var meta=el('p','meta');meta.appendChild(document.createTextNode(t('graded_at')+': '+h.g+'  '));
if(h.l!==ui){var ls=el('label','mlang');ls.appendChild(document.createTextNode(t('msg_lang')+': '));
var sel=el('select');[['learner',t('msg_learner')+' ('+h.l+')'],['page',t('msg_page')+' ('+ui+')']].forEach(function(o){
var op=el('option',null,o[1]);op.value=o[0];op.selected=o[0]===mode;sel.appendChild(op);});
sel.addEventListener('change',function(){mode=sel.value;show(b);});ls.appendChild(sel);meta.appendChild(ls);}
pop.appendChild(meta);
if(hist){head.appendChild(document.createTextNode('\u2014 '+t('learner_history')));pop.appendChild(historyTable(h));}
else if(p.length===1){var k=el('span','kind',t(h.e.k));head.appendChild(k);pop.appendChild(el('p',null,h.e.m));
pop.appendChild(el('pre',null,h.e.d));}
else{var lab=D.labs[p[1]],res=h.s[p[1]];head.appendChild(document.createTextNode('\u2014 '+lab.id));
if(p.length===2){head.appendChild(el('span','kind',t(res.k)));pop.appendChild(el('p',null,res.e));}
else{var st=lab.steps[p[2]],step=res[p[2]];
head.appendChild(document.createTextNode(' \u00b7 '+t('step_n',{step:st.step})+': '+(st.titles[mode==='page'?ui:h.l]||st.title)+' '));
head.appendChild(el('span','badge s-'+step[0],t(step[0])));
var fp=h.f[p[1]];if(fp)pop.appendChild(el('p','meta',t('first_passed')+': '+(fp[p[2]]>=0?D.times[fp[p[2]]]:t('not_yet'))));
if(!step[1].length)pop.appendChild(el('p',null,t('no_checks')));else{
var tb=el('table','checks'),cg=el('colgroup');[11,17,30,13,13,16].forEach(function(w){var c=el('col');
c.style.width=w+'%';cg.appendChild(c);});tb.appendChild(cg);var tr=el('tr');
var KS=['status','check','message','expected','found','hint'];KS.forEach(function(k){tr.appendChild(el('th',null,t(k)));});
var th=el('thead');th.appendChild(tr);tb.appendChild(th);var body=el('tbody'),last='';
worstFirst(step[1]).forEach(function(ri){var r=D.rows[ri],row=el('tr'),m=pick(r[2],h),hi=pick(r[5],h);
row.appendChild(el('td','s-'+r[1],D.sym[r[1]]+' '+r[1]));var cc=el('td');cc.appendChild(el('code',null,r[0]));
row.appendChild(cc);row.appendChild(el('td',null,m[0]+(m[1]?' '+t('untranslated'):'')));
[r[3],r[4]].forEach(function(v){var c=el('td');c.appendChild(el('pre',null,v));row.appendChild(c);});
row.appendChild(el('td',null,hi[0]&&hi[0]===last?'\u3003':hi[0]));last=hi[0]||last;keyed(row,KS);body.appendChild(row);});tb.appendChild(body);pop.appendChild(tb);}}}
pop.hidden=false;
var r=b.getBoundingClientRect(),w=pop.offsetWidth,hh=pop.offsetHeight,sx=window.scrollX,sy=window.scrollY;
var left=Math.max(sx+8,Math.min(r.left+sx,sx+document.documentElement.clientWidth-w-8));
var top=r.bottom+sy+4;if(r.bottom+hh+8>window.innerHeight&&r.top-hh-4>0)top=r.top+sy-hh-4;
pop.style.left=left+'px';pop.style.top=top+'px';}
function open(b){if(opened)opened.parentNode.classList.remove('open');opened=b;b.parentNode.classList.add('open');mode='learner';
show(b);pop.focus({preventScroll:true});}
function close(){if(!opened)return;var b=opened;opened=null;pop.hidden=true;b.parentNode.classList.remove('open');
b.focus({preventScroll:true});}
document.addEventListener('click',function(e){var b=e.target.closest('button[data-c],button[data-h]');
if(b){e.preventDefault();if(b===opened)close();else open(b);return;}
var sb=e.target.closest('button.sort');if(sb){var s0=sb.getAttribute('data-sort'),k=sortKey||fSort.value;
sortKey=k===s0&&REVERSE[s0]?REVERSE[s0]:s0;
if([].some.call(fSort.options,function(o){return o.value===sortKey;}))fSort.value=sortKey;apply();return;}
var fc=e.target.closest('button.fc');if(fc){var on=fc.getAttribute('aria-pressed')!=='true';
document.querySelectorAll('button.fc').forEach(function(o){o.setAttribute('aria-pressed','false');});
fc.setAttribute('aria-pressed',String(on));only=on?fc.getAttribute('data-rows').split(' '):null;apply();return;}
var rb=e.target.closest('td.rate button');if(rb){var s=rb.parentNode.getAttribute('data-step');
fStep.value=fStep.value===s?'':s;apply();return;}
if(opened&&!pop.contains(e.target))close();});
function cellsOf(tr){var out=[],c=0;[].forEach.call(tr.cells,function(td){var b=td.querySelector('button.c,button.hn');
if(b)out.push([c,c+td.colSpan,b]);c+=td.colSpan;});return out;}
function move(b,dr,dc){var tr=b.closest('tr'),cells=cellsOf(tr),i=0;while(i<cells.length&&cells[i][2]!==b)i++;
if(dc){var n=cells[i+dc];return n?n[2]:null;}
var r=tr;do{r=dr>0?r.nextElementSibling:r.previousElementSibling;}while(r&&r.hidden);if(!r)return null;
var col=cells[i][0],best=null,bd=1e9;cellsOf(r).forEach(function(x){var d=x[0]<=col&&col<x[1]?0:Math.abs(x[0]-col);
if(d<bd){bd=d;best=x[2];}});return best;}
var ARROWS={ArrowLeft:[0,-1],ArrowRight:[0,1],ArrowUp:[-1,0],ArrowDown:[1,0]};
function trap(e){var f=[].filter.call(pop.querySelectorAll('button,select,a[href],[tabindex="0"]'),function(x){
return x.offsetParent!==null;});if(!f.length){e.preventDefault();return;}var a=document.activeElement,first=f[0],last=f[f.length-1];
if(!pop.contains(a)||(e.shiftKey&&(a===first||a===pop))){e.preventDefault();(e.shiftKey?last:first).focus();}
else if(!e.shiftKey&&a===last){e.preventDefault();first.focus();}}
document.addEventListener('keydown',function(e){if(e.key==='Escape'){close();return;}
if(e.key==='Tab'&&opened){trap(e);return;}
var d=ARROWS[e.key],b=d&&!opened&&e.target.closest&&e.target.closest('#rows button.c,#rows button.hn');if(!b)return;
var next=move(b,d[0],d[1]);e.preventDefault();if(next)next.focus();});
relabel();apply();
})();
